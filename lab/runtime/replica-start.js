'use strict';

const path = require('node:path');
const { ROOT, shellPath } = require('../paths');
const { probeEnv } = require('../probe/env');

// How one replica starts under pm2, the lab's service or yours (--app): [script, options] for
// pm2AppOf (lab/runtime/local.js). Everything it needs beyond the node (its name, port and
// workers) is in the state (state.replicaEnv, JSON), so that a replica added later by another
// command (npm run scale, a rollout, the autoscaler) starts exactly as the first ones did.

// How long pm2 lets a replica take to stop before its SIGKILL: longer than any grace the lab
// gives (--grace, at most 120 s), which the lab enforces itself (lab/runtime/local-replicas.js).
const REPLICA_KILL_TIMEOUT_MS = 125000;

// What state.replicaEnv keeps: StatsD, the service's extra environment, the hub, the stores'
// addresses, where the runtime probe sends, and the NODE_OPTIONS the lab was started with.
function replicaEnvOf({
  options = {},
  hubToken = null,
  hubAddress = null,
  storeEnv = {},
  probeAddress = null,
  probeProfileUs = null,
}) {
  return {
    // The Node the service runs on (--node: lab/runtime/node-versions.js), null for the lab's.
    serviceNode: options.serviceNode ?? null,
    statsd: options.statsd ? { host: options.statsd.host, port: options.statsd.port } : null,
    serviceEnv: options.serviceEnv || {},
    hubToken,
    hubAddress,
    storeEnv,
    probeAddress,
    probeProfileUs,
    nodeOptions: process.env.NODE_OPTIONS || '',
  };
}

// -> (node, app = the deployment's) => [script, how].
function replicaStarter(state) {
  const e = state.replicaEnv;
  const probeOf = (node) =>
    e.probeAddress
      ? probeEnv({ node: node.name, address: e.probeAddress, before: e.nodeOptions, profileUs: e.probeProfileUs })
      : {};
  return (node, app = state.deployment.app) => {
    if (app) {
      const { script, ...how } = appProcess(app, node, { ...e.storeEnv, ...probeOf(node) }, e.serviceNode);
      return [script ?? null, { ...how, kill_timeout: REPLICA_KILL_TIMEOUT_MS }];
    }
    const { host, ports } = state;
    return [
      'service/index.js',
      {
        env: {
          HOST: host,
          PORT: String(node.port),
          WORKERS: String(node.workers),
          INSTANCE: node.name,
          BBOX1_URL: `http://${host}:${ports.bbox1}`,
          BBOX2_URL: `http://${host}:${ports.bbox2}`,
          SHUTDOWN_TIMEOUT_MS: '3000',
          ...(e.statsd ? { STATSD_HOST: e.statsd.host, STATSD_PORT: String(e.statsd.port) } : {}),
          STATSD_PREFIX: 'lab.service',
          // Signaling rooms shared across the deployment's service processes.
          ...(node.upstreams.includes('hub') ? { SIGNAL_HUB: e.hubAddress, SIGNAL_HUB_TOKEN: e.hubToken } : {}),
          ...e.serviceEnv,
          ...probeOf(node),
        },
        kill_timeout: REPLICA_KILL_TIMEOUT_MS,
        ...(e.serviceNode ? { node: e.serviceNode } : {}),
      },
    ];
  };
}

// How pm2 runs one replica of your service: its own command from its own folder, PORT set;
// with workers, the lab's node:cluster primary forks its entry (lab/app/primary.js). A shell
// line is exec'd by /bin/sh, with its node_modules/.bin first in PATH as npm would.
// `serviceNode`: the Node it runs on (--node), the lab's own when null: the program's
// interpreter, and a shell line's first `node` on its PATH.
function appProcess(app, node, extraEnv = {}, serviceNode = null) {
  const env = { ...extraEnv, PORT: String(node.port), ...(app.run.node?.env || {}) };
  const on = serviceNode ? { node: serviceNode } : {};
  if (app.run.node && node.workers > 1) {
    return {
      ...on,
      script: path.join(ROOT, 'lab', 'app', 'primary.js'),
      args: [app.run.node.entry, ...app.run.node.args],
      env: { ...env, WORKERS: String(node.workers), LAB_EXEC_ARGV: JSON.stringify(app.run.node.execArgv) },
      cwd: app.dir,
    };
  }
  if (app.run.node) {
    return {
      ...on,
      script: app.run.node.entry,
      args: app.run.node.args,
      nodeArgs: app.run.node.execArgv,
      env,
      cwd: app.dir,
    };
  }
  // (Not `exec LINE`: that runs only the first command of `npm run build && node x.js`.)
  return {
    command: '/bin/sh',
    args: ['-c', app.run.shell],
    env: { ...env, PATH: shellPath(app.dir, serviceNode) },
    cwd: app.dir,
  };
}

module.exports = { replicaEnvOf, replicaStarter, appProcess, REPLICA_KILL_TIMEOUT_MS };
