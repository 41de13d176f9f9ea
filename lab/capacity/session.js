'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { own } = require('../ownership/cleanups');
const { runLevel } = require('./level');
const { noteWritten, measuredBefore } = require('./search-dir');
const { waitRecovery, probeRate, PROBE_S } = require('./recovery');

// One deployment's search on this host: what the search (./search.js) and its verification
// (./verify.js) call, over a runtime that deploys it when a level must be measured.
//   measure(rate, holdS)  a level (read back from an earlier run of this search when its folder
//                         holds it whole); with `fresh`, on a deployment of its own, made anew
//                         (a fresh database with --with) for every level after the first
//   recover(level)        after a level that broke: probes until the service answers as it did
//                         before the search (./recovery.js), or null with `fresh`
//   down()                takes the deployment down
// o: { newRuntime: () => runtime (a runtime is down once: a fresh level gets a new one),
//      deploy: async (runtime) => state, folder (the deployment's own folder in the search's),
//      dir (the search's), level (a level's options but rate, holdS, dir: ./level.js runLevel),
//      start, warmupS, holdFor, fresh, recoveryWaitS, log, tag }
function deploymentSession(o) {
  let state = null;
  let baseline = null;
  let levels = 0;
  // (A resumed search's probes go on after the earlier run's, beside them.)
  let probes = existing(o.folder, /^probe-\d+$/);
  let runtime = o.newRuntime();
  runtime.assertNotUp();
  const release = own(() => runtime.down());
  const bring = async () => {
    state = await o.deploy(runtime);
    // What "recovered" is measured against: the service as it answered before any level.
    if (!o.fresh) baseline = await probe();
  };
  const probe = () =>
    runLevel({
      ...o.level,
      rate: probeRate(o.start),
      warmupS: 0,
      holdS: PROBE_S,
      dir: path.join(o.folder, `probe-${String(++probes).padStart(2, '0')}`),
      target: state.url,
    });

  const measure = async (rate, holdS = o.holdFor(rate)) => {
    const level = {
      ...o.level,
      rate,
      warmupS: o.warmupS,
      holdS,
      dir: path.join(o.folder, `${String(++levels).padStart(2, '0')}-${rate}`),
    };
    noteWritten(o.dir, path.relative(o.dir, o.folder).split(path.sep)[0]);
    const before = measuredBefore(level);
    if (before) return before;
    if (state && o.fresh) {
      o.log(`${o.tag}: a fresh deployment for the level at ${rate}/s (--fresh-per-level)`);
      await runtime.down();
      state = null;
      runtime = o.newRuntime();
    }
    if (!state) await bring();
    return runLevel({ ...level, target: state.url });
  };

  const recover = o.fresh
    ? null
    : async (after) => {
        // A level read back from an earlier run: the deployment is a new one anyway.
        if (after.resumed || !state) return { ok: true, text: 'measured before: a new deployment from here' };
        o.log(`${o.tag}: waiting for the service to answer as before the search (a probe at ${probeRate(o.start)}/s)`);
        return waitRecovery({ probe, baseline, maxWaitS: o.recoveryWaitS });
      };

  const down = async () => {
    if (state) await runtime.down();
    state = null;
    release();
  };
  return { measure, recover, down };
}

function existing(dir, re) {
  try {
    return fs.readdirSync(dir).filter((n) => re.test(n)).length;
  } catch {
    return 0;
  }
}

module.exports = { deploymentSession };
