'use strict';

const { names, METHOD_NAMES } = require('../topology/deployments');
const { kindOf } = require('../kinds');
const { runtimeFor } = require('../runtime');
const { defineCommand } = require('../terminal/flags');
const { CONTEXT } = require('../topology/context');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { downHint } = require('../../common/errors');
const processTable = require('../terminal/process-table');
const { describeCap } = require('../topology/caps');
const { KIND_HELP, DEPLOY_FLAGS, planDeploy } = require('../runtime/deploy-plan');
const { APP_HELP } = require('../app/flags');
const { TLS_HELP } = require('../tls/flags');

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

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: ['deployment'] },
  flags: { ...CONTEXT, ...DEPLOY_FLAGS },
});
// The usage, with the flags that take effect only beside another (the flag schema's needs).
const HELP = [USAGE, COMMAND.needsHelp()].filter(Boolean).join('\n');

async function deploy(argv, { log }) {
  const { help, values, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: HELP };
  const p = planDeploy(values, positionals[0]);
  const { deployment, ctx, ports, graph, caps } = p;
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
    graph,
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

deploy.usage = HELP;
module.exports = deploy;
