'use strict';

// --load-nodes N: the lab's generator as N swarm tasks coordinated from here. What it needs
// from the context: the swarm (the docker client's environment), the address the nodes reach
// this machine at, the image and where the lab's code is on the nodes.
const dgram = require('node:dgram');
const { labError } = require('../../common/errors');
const { IMAGES } = require('../topology/compose-file');
const { startDistributed } = require('./distributed');
const { swarmLauncher } = require('./swarm-launcher');
const { localLauncher } = require('./local-launcher');
const { run } = require('../runtime/engine-run');

// The manager's address, from DOCKER_HOST (tcp:// or ssh://), else what the engine says.
async function managerAddress(env) {
  const host = env.DOCKER_HOST || '';
  const m = /^(?:tcp|ssh):\/\/(?:[^@/]+@)?\[?([^\]/:]+)\]?/.exec(host);
  if (m) return m[1];
  const info = await run('docker', ['info', '--format', '{{.Swarm.NodeAddr}}'], { env, timeoutMs: 15000 });
  const addr = info.out.trim();
  return info.code === 0 && addr ? addr : '127.0.0.1';
}

// This machine's address on the route to `to` (no packet sent: a connected UDP socket only
// asks the kernel which source it would use).
function localAddressTowards(to) {
  return new Promise((resolve, reject) => {
    const s = dgram.createSocket(to.includes(':') ? 'udp6' : 'udp4');
    s.on('error', reject);
    s.connect(9, to, () => {
      const { address } = s.address();
      s.close();
      resolve(address);
    });
  });
}

// Where the coordinator listens: LAB_COORDINATOR_HOST, else the address this machine has
// towards the swarm's manager (the lab's VM cluster: 10.77.0.1).
async function coordinatorHost(env) {
  if (env.LAB_COORDINATOR_HOST) return env.LAB_COORDINATOR_HOST;
  const manager = await managerAddress(env);
  try {
    return await localAddressTowards(manager);
  } catch (err) {
    throw labError(
      'LAB_ERR_USAGE',
      `no route from this machine to the swarm's manager ${manager} (${err.message}): set LAB_COORDINATOR_HOST to an address of this machine the nodes reach`,
    );
  }
}

function startOnLoadNodes(plan, { nodes, env, onRecord, log, onStarting, port = 0 }) {
  const emulated = Boolean(env.LAB_EMULATED);
  // LAB_LOAD_NODES=local: processes of this machine stand for the nodes (the coordination,
  // clocks and merge as on a swarm, without one).
  const local = env.LAB_LOAD_NODES === 'local';
  const launcher = local
    ? localLauncher()
    : swarmLauncher({
        env,
        image: `${env.LAB_REGISTRY || ''}${IMAGES.service}`,
        // The lab's VM cluster shares the lab's code with every node: the tasks run it from there.
        appMount: env.LAB_CLUSTER_DIR ? '/lab/app' : null,
        log,
      });
  let gen = null;
  const ready = (local ? Promise.resolve('127.0.0.1') : coordinatorHost(env)).then((host) => {
    gen = startDistributed(plan, {
      nodes,
      launcher,
      listenHost: host,
      port,
      onRecord,
      onStarting,
      log,
      // Emulated nodes start a task and their threads in tens of seconds, not one.
      connectTimeoutMs: emulated ? 600000 : 120000,
      startAheadMs: emulated ? 8000 : 2000,
    });
    return gen;
  });
  const done = ready.then((g) => g.done);
  return {
    pid: null,
    get workers() {
      return gen ? gen.workers : null;
    },
    done,
    stop: () =>
      ready.then(
        (g) => g.stop(),
        () => null,
      ),
    samples: () => (gen ? gen.samples() : []),
  };
}

module.exports = { startOnLoadNodes, coordinatorHost, localAddressTowards, managerAddress };
