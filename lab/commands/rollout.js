'use strict';

const { runtimeOfState } = require('../runtime');
const { defineCommand } = require('../terminal/flags');
const { STATE } = require('../topology/context');
const { labError } = require('../../common/errors');
const { holdDir } = require('../ownership/lock');
const { ELASTIC_FLAGS, standalone } = require('../elastic/flags');
const { own } = require('../ownership/cleanups');
const { rollout } = require('../elastic/replicas');
const { resolveApp } = require('../app/contract');
const { APP_FLAGS } = require('../app/flags');
const { installApp } = require('../app/install');
const processTable = require('../terminal/process-table');

const USAGE = `usage: npm run rollout -- [--app-next DIR [--app-cmd CMD]] [--max-surge N|P%] [--max-unavailable N|P%]
       [--grace D] [--pre-stop D] [--state-dir DIR] [--json]
Replaces every replica of the deployment that is up, one at a time, as a Kubernetes
Deployment's RollingUpdate (locally and on compose): a new replica joins the entry once it
answers; an old one leaves the entry, then gets SIGTERM, and SIGKILL after --grace.
  --app-next DIR      the new version of your service (--app), started with its own line
                      (its package.json's start, or --app-cmd "node server.js")
  --max-surge N|P%    replicas above the count while it rolls (default 25%, rounded up)
  --max-unavailable N|P%  replicas below it (default 25%, rounded down); not both 0
  --grace D           SIGTERM to SIGKILL (default 30s, at most 120s)
  --pre-stop D        hold each SIGTERM until the old replica has no connection left, at most D
While it runs, send your own load: its failed requests are yours to count (npm run scenario
-- ... --rollout-at T counts them, by cause).`;

const COMMAND = defineCommand({
  usage: USAGE,
  flags: {
    ...STATE,
    // (Here the command is the rollout: the flags that tune one need nothing more.)
    'app-next': standalone(ELASTIC_FLAGS['app-next']),
    'app-cmd': APP_FLAGS['app-cmd'],
    'max-surge': standalone(ELASTIC_FLAGS['max-surge']),
    'max-unavailable': standalone(ELASTIC_FLAGS['max-unavailable']),
    grace: standalone(ELASTIC_FLAGS.grace),
    'pre-stop': standalone(ELASTIC_FLAGS['pre-stop']),
  },
});

async function rolloutCommand(argv, { log }) {
  const { help, values } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  holdDir(values['state-dir'], '--state-dir');
  const runtime = runtimeOfState({ stateDir: values['state-dir'], log });
  const { state } = runtime.state.inspect();
  if (!state) throw labError('LAB_ERR_NOT_UP');
  if (typeof runtime.addReplica !== 'function')
    throw labError('LAB_ERR_ELASTIC', `a rollout runs on the local and compose engines, not ${state.runtime}`);
  const why = runtime.elasticWhy(state);
  if (why) throw labError('LAB_ERR_ELASTIC', why);
  let app = null;
  if (values['app-next'] !== undefined) {
    const yours = state.deployment.app;
    if (!yours)
      throw labError(
        'LAB_ERR_USAGE',
        "--app-next is a new version of your service: this deployment runs the lab's own",
      );
    // Its own start line (its package.json's, or --app-cmd), the first version's health path.
    app = resolveApp({
      dir: values['app-next'],
      cmd: values['app-cmd'] ?? null,
      health: yours.health,
      startTimeoutS: yours.startTimeoutS,
      flag: 'app-next',
    });
    await installApp(app, log);
  }
  const t0 = Date.now();
  // Ctrl-C: the step under way finishes (a replica being added joins the entry, one being
  // removed is stopped), then the rollout ends there, the state, the entry and the running
  // replicas in agreement. (It once left a new replica running outside the entry, the state
  // counting 4 where the entry had 3.)
  let stopping = false;
  let pending = null;
  const release = own(async () => {
    stopping = true;
    log('stopping the rollout once the replica being added or removed is done');
    await pending?.catch(() => {});
    log(`the rollout was interrupted: ${runtime.replicaNames().join(', ')} up and in the entry`);
  });
  pending = rollout(runtime, {
    app,
    maxSurge: values['max-surge'],
    maxUnavailable: values['max-unavailable'],
    graceS: values.grace ?? 30,
    preStopS: values['pre-stop'] ?? 0,
    log,
    stop: () => stopping,
  });
  const r = await pending;
  release();
  const seconds = (Date.now() - t0) / 1000;
  log(`${r.replaced.length} replica(s) replaced in ${seconds.toFixed(1)} s`);
  const s = await runtime.status();
  if (values.json) return { stdout: JSON.stringify({ ...s, rollout: { ...r, seconds } }, null, 2) };
  const lines = r.replaced.map((x) => `  ${x.old} -> ${x.new}`).join('\n');
  return { stdout: `${s.deployment.label}: rolled out\n${lines}\n\n${processTable(s)}` };
}

rolloutCommand.usage = USAGE;
module.exports = rolloutCommand;
