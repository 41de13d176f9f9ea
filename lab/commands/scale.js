'use strict';

const { runtimeOfState } = require('../runtime');
const { defineCommand } = require('../terminal/flags');
const { STATE } = require('../topology/context');
const { LIMITS } = require('../topology/deployments');
const { labError } = require('../../common/errors');
const processTable = require('../terminal/process-table');
const { holdDir } = require('../ownership/lock');
const { scaleTo } = require('../elastic/replicas');
const { ELASTIC_FLAGS, standalone } = require('../elastic/flags');

const USAGE = `usage: npm run scale -- replica=N [--grace D] [--state-dir DIR] [--json]
Sets the number of service replicas of the deployment that is up. Locally and on compose, one
at a time: a new replica joins the entry once it answers, a removed one (the newest first)
leaves the entry, is drained, then gets SIGTERM and SIGKILL after --grace (default 30s). On the
swarm engine (npm run deploy -- <deployment> --engine swarm): swarm starts or stops tasks, and
nginx finds them by DNS.`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: ['replica=N'] },
  // (Here the command removes replicas itself: --grace needs nothing more.)
  flags: { ...STATE, grace: standalone(ELASTIC_FLAGS.grace) },
});

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
  log(
    `scaling ${state.deployment.label} from ${state.graph?.replicas ?? state.deployment.replicas} to ${replicas} replica(s)`,
  );
  let seconds;
  if (typeof runtime.addReplica === 'function') {
    // Local and compose: one replica at a time, each in the entry once it answers, each
    // removed one drained first (lab/elastic/replicas.js).
    const why = runtime.elasticWhy(state);
    if (why) throw labError('LAB_ERR_ELASTIC', why);
    const t0 = Date.now();
    await scaleTo(runtime, replicas, { graceS: values.grace ?? 30, log });
    seconds = (Date.now() - t0) / 1000;
  } else if (typeof runtime.scale === 'function') {
    ({ seconds } = await runtime.scale(replicas));
  } else {
    throw labError('LAB_ERR_USAGE', `this deployment runs on ${state.runtime}, whose replicas the lab cannot change`);
  }
  log(`${replicas} replica(s) answering after ${seconds.toFixed(1)} s`);
  const s = await runtime.status();
  if (values.json) return { stdout: JSON.stringify({ ...s, scaleSeconds: seconds }, null, 2) };
  return { stdout: `${s.deployment.label}: ${replicas} replica(s) at ${s.url}\n\n${processTable(s)}` };
}

scale.usage = USAGE;
module.exports = scale;
