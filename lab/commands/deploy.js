'use strict';

const os = require('node:os');
const { resolveDeployment, names, LIMITS, METHOD_NAMES } = require('../topology/deployments');
const { BALANCERS, EDGES, EDGE_BY_FLAG, kindOf } = require('../kinds');
const { planPorts } = require('../topology/ports');
const { runtimeFor, RUNTIMES } = require('../runtime');
const { defineCommand, flag } = require('../terminal/flags');
const { contextOf, CONTEXT } = require('../topology/context');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { assertClaimable } = require('../ownership/dirs');
const { labError, downHint } = require('../../common/errors');
const processTable = require('./process-table');
const { parseCap, resolveCaps, checkCapsFit, describeCap } = require('../topology/caps');
const { buildGraph } = require('../topology/graph');
const { PLACEMENTS } = require('../topology/compose-file');
const { APP_FLAGS, APP_HELP, appOf } = require('../app/flags');
const { TLS_FLAGS, TLS_HELP, tlsOf } = require('../tls/flags');

// The balancer and edge kinds as help lines, from their table (lab/kinds/).
const kindLines = (kinds, flagOf = (k) => k.name) =>
  kinds.map((k) => `                  ${flagOf(k).padEnd(11)} ${k.what} (${k.runtimes.join(', ')})`).join('\n');
const KIND_HELP = `  --balancer B  the entry (default nginx):\n${kindLines(BALANCERS)}
  --edge-kind K the caching edges' kind (default nginx):\n${kindLines(EDGES, (k) => k.flag || k.name)}`;

const USAGE = `usage: npm run deploy -- <deployment> [--replicas N] [--workers N] [--balancer B]
       [--method ${METHOD_NAMES.join('|')}] [--edges N] [--edge-kind K] [--cap NODE=CPU[/PERIOD][,MEMORY]]...
       [--app DIR [--app-cmd CMD] [--health PATH]] [--key KEY] [--engine local|compose|swarm]
       [--placement spread|apart|manager-only]
       [--force] [--port-base P] [--host H] [--state-dir DIR] [--json]
deployments: ${names().join(', ')} (aliases: cluster = multi, replicated-cluster = multi-replicated)
${KIND_HELP}
  --edges N     caching edges between the balancer and the replicas (cdn has 4)
  --placement P on a swarm of several nodes (npm run cluster): spread (default: the entry on
                the manager, the rest where swarm puts it), apart (the servers on the workers,
                away from the entry, as seed 004), manager-only
${APP_HELP}
${TLS_HELP}
  --cap NODE=CPU[/PERIOD][,MEMORY]  caps a node, repeatable: CPU in % of one core (as docker
                stats), MEMORY with K/M/G, e.g. --cap edge=2%,25M --cap balancer=2%,25M. PERIOD is
                the CFS period the share is given over (default 100ms; 1ms to 1s, the quota at
                least 1 ms), e.g. --cap edge=2%/500ms. NODE is a role (balancer, edge, replica,
                backend, bbox) or one node's name (replica-2). Linux cgroups, as root.`;

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

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: ['deployment'] },
  flags: { ...CONTEXT, ...DEPLOY_FLAGS },
});

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
  });
  const deployment = resolveDeployment(positional, { ...values, edgeKind: values['edge-kind'], app, tls });
  if (app && deployment.workers > 1 && !app.run.node) {
    throw labError(
      'LAB_ERR_USAGE',
      `${deployment.name} runs ${deployment.workers} node:cluster workers of your service, which needs a plain \`node file.js\` start; "${app.line}" is not one: give --app-cmd "node server.js"`,
    );
  }
  if (values['edge-kind'] !== undefined && !deployment.edges) {
    throw labError('LAB_ERR_USAGE', '--edge-kind sets the kind of the caching edges: add --edges N (cdn has 4)');
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
        'LAB_ERR_USAGE',
        `${flagName} ${kind.flag || kind.name} runs on the ${kind.runtimes.join(' or ')} engine, not ${runtime} (--engine)`,
      );
    }
  }
  // Where nothing is built (LAB_IMAGES=preloaded, outside the lab's cluster) your service's
  // image cannot be made: said before anything starts.
  if (app && runtime === 'swarm' && process.env.LAB_IMAGES === 'preloaded' && !process.env.LAB_CLUSTER_DIR) {
    throw labError(
      'LAB_ERR_USAGE',
      "--app on this swarm: its images are preloaded (LAB_IMAGES=preloaded) and nothing is built there, so your service's image cannot be made; unset LAB_IMAGES to build it on the manager, or use the lab's cluster (npm run cluster), which shares your folder with its nodes",
    );
  }
  if (deployment.appSetup && runtime === 'swarm') {
    throw labError(
      'LAB_ERR_USAGE',
      "--app-setup on a swarm: swarm starts its services in no order, so nothing could run before your replicas; run your set-up at your service's start, or use --engine local or compose",
    );
  }
  if (values.placement !== undefined && runtime !== 'swarm') {
    throw labError('LAB_ERR_USAGE', '--placement says where tasks run on a swarm: add --engine swarm');
  }
  const ctx = contextOf(values);
  const ports = planPorts(ctx.portBase, deployment.replicas, deployment.edges);
  // Caps name the nodes of this deployment's graph; checked here, before anything starts.
  const caps = resolveCaps(values.cap || [], buildGraph(deployment, ports));
  if (runtime !== 'swarm') checkCapsFit(caps);
  // A swarm service's limits have no CFS period (docker service create has --limit-cpu only).
  const withPeriod = Object.entries(caps).filter(([, c]) => c.periodUs);
  if (runtime === 'swarm' && withPeriod.length)
    throw labError(
      'LAB_ERR_USAGE',
      `--cap ${withPeriod[0][0]}: a CFS period (/${withPeriod[0][1].periodUs / 1000}ms) cannot be set on a swarm (its services take a CPU limit only); use --engine local or compose`,
    );
  assertClaimable(ctx.stateDir, '--state-dir');
  return { deployment, ctx, ports, caps, runtime, placement: values.placement };
}

async function deploy(argv, { log }) {
  const { help, values, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const p = planDeploy(values, positionals[0]);
  const { deployment, ctx, ports, caps } = p;
  holdDir(ctx.stateDir, '--state-dir');
  const runtime = runtimeFor(p.runtime, { stateDir: ctx.stateDir, host: ctx.host, log });

  runtime.assertNotUp();
  // Until it is up, Ctrl-C or a failure takes down whatever was started.
  const release = own(() => runtime.down());
  const edges = deployment.edges ? ` and ${deployment.edges} caching edge(s)` : '';
  log(
    `deploying ${deployment.label}: ${deployment.replicas} replica(s) x ${deployment.workers} worker(s) behind ${kindOf(deployment.balancer.kind).what}${edges}`,
  );
  for (const [node, cap] of Object.entries(caps)) log(`capping ${node}: ${describeCap(cap)}`);
  const state = await runtime.up(deployment, ports, {
    bbox: { key: values.key ?? '' },
    caps,
    placement: p.placement,
    probe: !values['no-probe'],
  });
  release();
  const status = await runtime.status();
  if (values.json) return { stdout: JSON.stringify(status, null, 2) };
  return {
    stdout: `${deployment.label} is up at ${(state.urls || [state.url]).join(', ')}\n\n${processTable(status)}\n\nstop it with: ${downHint(ctx.stateDir)}`,
  };
}

deploy.usage = USAGE;
deploy.KIND_HELP = KIND_HELP;
deploy.DEPLOY_FLAGS = DEPLOY_FLAGS;
deploy.planDeploy = planDeploy;
module.exports = deploy;
