'use strict';

const { resolveDeployment, names } = require('../deployments');
const { planPorts } = require('../ports');
const { runtimeFor } = require('../runtime');
const { parseCommandLine, labContext } = require('../options');
const { own } = require('../owner');
const { labError } = require('../../common/errors');
const processTable = require('../process-table');

const USAGE = `usage: npm run deploy -- <deployment> [--replicas N] [--workers N] [--key KEY] [--engine local|compose]
       [--port-base P] [--host H] [--json]
deployments: ${names().join(', ')} (aliases: cluster = multi, replicated-cluster = multi-replicated)`;

async function deploy(argv, { log }) {
  const { values, positionals } = parseCommandLine(
    argv,
    { replicas: { type: 'string' }, workers: { type: 'string' }, key: { type: 'string' }, engine: { type: 'string' } },
    USAGE,
  );
  if (values.help) return { stdout: USAGE };
  if (positionals.length !== 1) throw labError('LAB_ERR_USAGE', `expected one deployment name\n${USAGE}`);
  const deployment = resolveDeployment(positionals[0], values);
  const ctx = labContext(values);
  const ports = planPorts(ctx.portBase, deployment.replicas);
  const runtime = runtimeFor(values.engine ?? 'local', { stateDir: ctx.stateDir, host: ctx.host, log });

  runtime.assertNotUp();
  // Until it is up, Ctrl-C or a failure takes down whatever was started.
  const release = own(() => runtime.down());
  log(
    `deploying ${deployment.label}: ${deployment.replicas} replica(s) x ${deployment.workers} worker(s) behind nginx`,
  );
  const state = await runtime.up(deployment, ports, { bbox: { key: values.key ?? '' } });
  release();
  const status = await runtime.status();
  if (values.json) return { stdout: JSON.stringify(status, null, 2) };
  return {
    stdout: `${deployment.label} is up at ${state.url}\n\n${processTable(status)}\n\nstop it with: npm run down`,
  };
}

deploy.usage = USAGE;
module.exports = deploy;
