'use strict';

const { runtimeOfState } = require('../runtime');
const { defineCommand } = require('../terminal/flags');
const { STATE } = require('../topology/context');
const { LIMITS } = require('../topology/deployments');
const { labError } = require('../../common/errors');
const processTable = require('./process-table');
const { holdDir } = require('../ownership/lock');

const USAGE = `usage: npm run scale -- replica=N [--state-dir DIR] [--json]
Sets the number of service replicas of the deployment that is up, and waits until each
answers through the entry. On the swarm engine (npm run deploy -- <deployment> --engine swarm):
swarm starts or stops tasks, and nginx finds them by DNS.`;

const COMMAND = defineCommand({ usage: USAGE, positionals: { names: ['replica=N'] }, flags: STATE });

function parseTarget(word) {
  const m = /^replicas?=(\d+)$/.exec(word);
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= LIMITS.replicas.min && n <= LIMITS.replicas.max)) {
    throw labError(
      'LAB_ERR_USAGE',
      `expected replica=N with N from ${LIMITS.replicas.min} to ${LIMITS.replicas.max}, got "${word}"`,
    );
  }
  return n;
}

async function scale(argv, { log }) {
  const { help, values, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const replicas = parseTarget(positionals[0]);
  holdDir(values['state-dir'], '--state-dir');
  const runtime = runtimeOfState({ stateDir: values['state-dir'], log });
  const { state } = runtime.state.inspect();
  if (!state) throw labError('LAB_ERR_NOT_UP');
  if (typeof runtime.scale !== 'function') {
    throw labError(
      'LAB_ERR_USAGE',
      `scale works on the swarm engine; this deployment runs on ${state.runtime} (redeploy with --replicas ${replicas})`,
    );
  }
  log(`scaling ${state.deployment.label} from ${state.deployment.replicas} to ${replicas} replica(s)`);
  const { seconds } = await runtime.scale(replicas);
  log(`${replicas} replica(s) answering after ${seconds.toFixed(1)} s`);
  const s = await runtime.status();
  if (values.json) return { stdout: JSON.stringify({ ...s, scaleSeconds: seconds }, null, 2) };
  return { stdout: `${s.deployment.label}: ${replicas} replica(s) at ${s.url}\n\n${processTable(s)}` };
}

scale.usage = USAGE;
module.exports = scale;
