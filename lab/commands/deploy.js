'use strict';

const { kindOf } = require('../kinds');
const { runtimeFor } = require('../runtime');
const { own } = require('../ownership/cleanups');
const { holdDir } = require('../ownership/lock');
const { downHint } = require('../../common/errors');
const processTable = require('../terminal/process-table');
const { describeCap } = require('../topology/caps');
const { planDeploy } = require('../runtime/deploy-plan');
// (Its words and flags: ../run/deploy-flags.js, read by a study's group too.)
const { DEPLOY: COMMAND, DEPLOY_HELP: HELP } = require('../run/deploy-flags');

// (argv: a command line, or a parent's job: lab/run/job.js.)
async function deploy(argv, { log }) {
  const { help, values, positionals } = COMMAND.read(argv);
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
