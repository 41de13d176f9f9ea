'use strict';

const os = require('node:os');
const { resolveDeployment, LIMITS, METHOD_NAMES } = require('../topology/deployments');
const { BALANCERS, EDGES, EDGE_BY_FLAG, kindOf } = require('../kinds');
const { planPorts } = require('../topology/ports');
const { RUNTIMES } = require('.');
const { flag } = require('../terminal/flags');
const { contextOf } = require('../topology/context');
const { assertClaimable } = require('../ownership/dirs');
const { labError } = require('../../common/errors');
const { parseCap, resolveCaps, checkCapsFit } = require('../topology/caps');
const { buildGraph } = require('../topology/graph');
const { PLACEMENTS } = require('../topology/stack-file');
const { APP_FLAGS, appOf } = require('../app/flags');
const { TLS_FLAGS, tlsOf } = require('../tls/flags');

// What every command that deploys shares (deploy, scenario): the kinds' help lines, the
// deploy flags, and the plan of a deployment, checked before anything is created, started or
// deleted.

// The balancer and edge kinds as help lines, from their table (lab/kinds/).
const kindLines = (kinds, flagOf = (k) => k.name) =>
  kinds.map((k) => `                  ${flagOf(k).padEnd(11)} ${k.what} (${k.runtimes.join(', ')})`).join('\n');
const KIND_HELP = `  --balancer B  the entry (default nginx):\n${kindLines(BALANCERS)}
  --edge-kind K the caching edges' kind (default nginx):\n${kindLines(EDGES, (k) => k.flag || k.name)}`;

// The flags every command that deploys takes (deploy, scenario).
const DEPLOY_FLAGS = {
  replicas: flag.int(LIMITS.replicas.min, LIMITS.replicas.max),
  workers: flag.int(LIMITS.workers.min, LIMITS.workers.max),
  balancer: flag.enum(
    BALANCERS.map((k) => k.name),
    'balancer',
  ),
  method: flag.enum(METHOD_NAMES, 'method'),
  edges: flag.int(LIMITS.edges.min, LIMITS.edges.max),
  'edge-kind': flag.enum(Object.keys(EDGE_BY_FLAG), 'edge kind'),
  cap: flag.list(parseCap),
  key: flag.string(),
  engine: flag.enum(Object.keys(RUNTIMES), 'engine'),
  placement: flag.enum(PLACEMENTS, 'placement'),
  force: flag.bool(),
  ...APP_FLAGS,
  ...TLS_FLAGS,
};

// Where a deployment runs and what it is made of, worked out once for the whole command: its
// ports from the base; its graph (lab/topology/graph.js), built here and nowhere else for this
// deployment, then handed to the runtime's up() (on the container engines every node listens
// on the same inner port, so their graph's nodes carry none); and its --cap list resolved
// against that graph: caps name its nodes (a role or one node), so they are checked here,
// before anything starts.
function placeDeployment(deployment, { portBase, caps: capList = [], runtime = 'local' }) {
  const ports = planPorts(portBase, deployment.replicas, deployment.edges);
  const graph = buildGraph(deployment, runtime === 'local' ? ports : null);
  return { ports, graph, caps: resolveCaps(capList || [], graph) };
}

// More service processes than 8 per core is a typo more often than an experiment: it needs
// --force (32 x 32 on 2 cores would be 1,024 Node processes).
function assertSane(deployment, force, cores = os.cpus().length) {
  const n = deployment.replicas * deployment.workers;
  const limit = 8 * cores;
  if (n > limit && !force) throw labError('LAB_ERR_TOO_MANY', n, cores, limit);
}

// Everything a deploy needs, checked before anything is created, started or deleted.
function planDeploy(values, positional) {
  const app = appOf(values);
  const tls = tlsOf(values, {
    balancer: values.balancer ?? resolveDeployment(positional).balancer.kind,
    runtime: values.engine ?? 'local',
    host: values.host,
  });
  const deployment = resolveDeployment(positional, { ...values, edgeKind: values['edge-kind'], app, tls });
  if (app && deployment.workers > 1 && !app.run.node) {
    throw labError(
      'LAB_ERR_USAGE',
      `${deployment.name} runs ${deployment.workers} node:cluster workers of your service, which needs a plain \`node file.js\` start; "${app.line}" is not one: give --app-cmd "node server.js"`,
    );
  }
  if (values['edge-kind'] !== undefined && !deployment.edges) {
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      'edge-kind',
      'edges',
      'it sets the kind of the caching edges: add --edges N (cdn has 4)',
    );
  }
  assertSane(deployment, values.force);
  // Each kind says where it runs (lab/kinds/): the images' nginx has no stream module, the
  // routing mesh exists only on a swarm.
  const runtime = values.engine ?? 'local'; // the --engine flag names the runtime
  for (const [flagName, kind] of [
    ['--balancer', kindOf(deployment.balancer.kind)],
    ...(deployment.edges ? [['--edge-kind', kindOf(deployment.edgeKind)]] : []),
  ]) {
    if (!kind.runtimes.includes(runtime)) {
      throw labError(
        'LAB_ERR_NOT_ON_ENGINE',
        `${flagName} ${kind.flag || kind.name}`,
        `it runs on the ${kind.runtimes.join(' or ')} engine, not ${runtime} (--engine)`,
      );
    }
  }
  // Where nothing is built (LAB_IMAGES=preloaded, outside the lab's cluster) your service's
  // image cannot be made: said before anything starts.
  if (app && runtime === 'swarm' && process.env.LAB_IMAGES === 'preloaded' && !process.env.LAB_CLUSTER_DIR) {
    throw labError(
      'LAB_ERR_NOT_ON_ENGINE',
      '--app on this swarm',
      "its images are preloaded (LAB_IMAGES=preloaded) and nothing is built there, so your service's image cannot be made; unset LAB_IMAGES to build it on the manager, or use the lab's cluster (npm run cluster), which shares your folder with its nodes",
    );
  }
  if (deployment.appSetup && runtime === 'swarm') {
    throw labError(
      'LAB_ERR_NOT_ON_ENGINE',
      '--app-setup on a swarm',
      "swarm starts its services in no order, so nothing could run before your replicas; run your set-up at your service's start, or use --engine local or compose",
    );
  }
  if (values.placement !== undefined && runtime !== 'swarm') {
    throw labError(
      'LAB_ERR_FLAG_NEEDS',
      'placement',
      'engine',
      'it says where tasks run on a swarm: add --engine swarm',
    );
  }
  const ctx = contextOf(values);
  const { ports, graph, caps } = placeDeployment(deployment, { portBase: ctx.portBase, caps: values.cap, runtime });
  if (runtime !== 'swarm') checkCapsFit(caps);
  // A swarm service's limits have no CFS period (docker service create has --limit-cpu only).
  const withPeriod = Object.entries(caps).filter(([, c]) => c.periodUs);
  if (runtime === 'swarm' && withPeriod.length)
    throw labError(
      'LAB_ERR_NOT_ON_ENGINE',
      `--cap ${withPeriod[0][0]}`,
      `a CFS period (/${withPeriod[0][1].periodUs / 1000}ms) cannot be set on a swarm (its services take a CPU limit only); use --engine local or compose`,
    );
  assertClaimable(ctx.stateDir, '--state-dir');
  return { deployment, ctx, ports, graph, caps, runtime, placement: values.placement };
}

module.exports = { KIND_HELP, DEPLOY_FLAGS, planDeploy, placeDeployment, assertSane };
