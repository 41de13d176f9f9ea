'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { own, interrupted } = require('../ownership/cleanups');
const { runLevel } = require('./level');
const { noteWritten, measuredBefore } = require('./search-dir');
const {
  waitRecovery,
  probeRate,
  PROBE_S,
  SETTLE_PROBES,
  steadyFastest,
  risingFastest,
  stillRising,
  RISING,
} = require('./recovery');
const { settledDrift, trendDrift } = require('./drift');
const { unjudged } = require('./at-rest');
const pm2Restarts = require('../runtime/pm2-restarts');

// One deployment's search on this host: what the search (./search.js) and its verification
// (./verify.js) call, over a runtime that deploys it when a level must be measured.
//   measure(rate, holdS)  a level (read back from an earlier run of this search when its folder
//                         holds it whole); with `fresh`, on a deployment of its own, made anew
//                         (a fresh database with --with) for every level after the first.
//                         Each level says when it started (atS: seconds since its deployment
//                         came up) and which of the deployment's processes pm2 restarted since
//                         the level before (restarts: a crash; such a level never held). A
//                         level that could not run (its child printed no result, or the
//                         deployment did not come up) is returned as failed, with why.
//   recover(level)        after a level that broke: probes until the service answers as it did
//                         before the search (./recovery.js), or null with `fresh`; a process
//                         restarted meanwhile is never a recovery (its state was reset)
//   settle()              a probe once the search has bracketed the knee and the service has
//                         recovered, against the baseline: the drift it shows (./drift.js) or
//                         a restart, as a stop of the search, or null (and no settle with `fresh`)
//   down()                takes the deployment down
// o: { newRuntime: () => runtime (a runtime is down once: a fresh level gets a new one),
//      deploy: async (runtime) => state, folder (the deployment's own folder in the search's),
//      dir (the search's), level (a level's options but rate, holdS, dir: ./level.js runLevel),
//      start, warmupS, holdFor, fresh, recoveryWaitS, log, tag, deadlineMs (the search's time
//      limit: every step's child is stopped past it, and its level recorded as cut) }
function deploymentSession(o) {
  let state = null;
  let baseline = null;
  let lastProbe = null;
  let deployedAt = 0;
  let pm2Mark = 0;
  let levels = 0;
  // (A resumed search's probes go on after the earlier run's, beside them.)
  let probes = existing(o.folder, /^probe-\d+$/);
  let overloads = existing(o.folder, /^overload-again-\d+$/);
  let runtime = o.newRuntime();
  runtime.assertNotUp();
  const release = own(() => runtime.down());
  const bring = async () => {
    state = await o.deploy(runtime);
    deployedAt = Date.now();
    pm2Mark = state.pm2Home ? pm2Restarts.mark(state.pm2Home) : 0;
    // What "recovered" is measured against: the service as it answered before any level,
    // after a warm-up (its first seconds are connections opening and the JIT warming).
    if (!o.fresh) baseline = await probe(o.warmupS);
  };
  // The deployment's processes pm2 restarted since the last look: [{ node, restarts,
  // exitCodes, kills }].
  const restartsNow = () => {
    if (!state?.pm2Home) return [];
    const since = pm2Restarts.restartsSince(state.pm2Home, pm2Mark);
    pm2Mark = pm2Restarts.mark(state.pm2Home);
    return Object.entries(since).map(([node, r]) => ({ node, ...r }));
  };
  // A level as measured, marked with its time and any restart under it.
  const marked = (level, startedAt) => {
    const restarts = restartsNow();
    return {
      ...level,
      atS: Math.round((startedAt - deployedAt) / 100) / 10,
      ...(restarts.length ? { restarts, ok: false } : {}),
    };
  };
  // The time the search has left, each step's time-out (null: no limit).
  const left = () => (o.deadlineMs ? Math.max(1, (o.deadlineMs - Date.now()) / 1000) : null);
  const probe = async (warmupS = 0) => {
    const startedAt = Date.now();
    const level = await runLevel({
      ...o.level,
      timeoutS: left(),
      rate: probeRate(o.start),
      warmupS,
      holdS: PROBE_S,
      dir: path.join(o.folder, `probe-${String(++probes).padStart(2, '0')}`),
      target: state.url,
    });
    lastProbe = marked(level, startedAt);
    return lastProbe;
  };

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
    try {
      if (state && o.fresh) {
        o.log(`${o.tag}: a fresh deployment for the level at ${rate}/s (--fresh-per-level)`);
        await runtime.down();
        state = null;
        runtime = o.newRuntime();
      }
      if (!state) await bring();
      const startedAt = Date.now();
      return marked(await runLevel({ ...level, target: state.url, timeoutS: left() }), startedAt);
    } catch (err) {
      // Ctrl-C: the command is stopping, and what stops it is not this level's failure.
      if (interrupted()) throw err;
      const why = state ? err.message : `the deployment did not come up: ${err.message}`;
      o.log(`${o.tag}: the level at ${rate}/s could not run: ${why}`);
      return { rate, holdS, dir: level.dir, ok: false, failed: why, thresholds: [] };
    }
  };

  const recover = o.fresh
    ? null
    : async (after) => {
        // A level read back from an earlier run (--run-dir) broke a deployment that is gone:
        // this one never saw that overload, and the level that held, measured again after it,
        // would say nothing of a service that went through it (issue 84). The overload is run
        // again on this deployment first, and its recovery checked as any other.
        if (after.resumed || !state) {
          const again = await overloadAgain(after);
          if (again.stop) return again.stop;
        }
        o.log(`${o.tag}: waiting for the service to answer as before the search (a probe at ${probeRate(o.start)}/s)`);
        const seen = [];
        const { at, ...r } = await waitRecovery({
          probe: async () => {
            const p = await probe();
            if (p.restarts) seen.push(...p.restarts);
            return p;
          },
          baseline,
          maxWaitS: o.recoveryWaitS,
          // (A restarted process answers like new: that is no recovery, and no wait helps.)
          stop: () => seen.length > 0,
        });
        if (seen.length) {
          return {
            ...r,
            ok: false,
            restarts: seen,
            text: `${pm2Restarts.restartText(seen)} while it recovered: a restart is no recovery`,
          };
        }
        // Settled at rest, slower than before: the service changed (./drift.js), not a queue
        // still draining.
        // Or slowing probe after probe at rest, however far from the baseline (a trend).
        const drift = r.settled
          ? settledDrift(baseline, at)
          : r.rising
            ? trendDrift(baseline, r.seen.slice(-RISING))
            : null;
        return drift ? { ...r, drift } : r;
      };

  // The overload `after` (read back from an earlier run) run again on this deployment, brought
  // up for it when none is. -> { level } or { stop: a recovery's answer that ends the search }.
  const overloadAgain = async (after) => {
    try {
      if (!state) await bring();
    } catch (err) {
      if (interrupted()) throw err;
      return {
        stop: { ok: false, text: `the deployment did not come up to run ${after.rate}/s again: ${err.message}` },
      };
    }
    o.log(
      `${o.tag}: ${after.rate}/s broke a deployment of the earlier run (measured before): run again on this one before its recovery is checked`,
    );
    const startedAt = Date.now();
    const level = marked(
      await runLevel({
        ...o.level,
        rate: after.rate,
        warmupS: o.warmupS,
        holdS: after.holdS ?? o.holdFor(after.rate),
        dir: path.join(o.folder, `overload-again-${String(++overloads).padStart(2, '0')}`),
        target: state.url,
        timeoutS: left(),
      }),
      startedAt,
    );
    o.log(
      `${o.tag}: ${after.rate}/s again -> ${level.answeredPerS ?? '-'}/s answered, p99 ${level.latencyMs?.p99 ?? '-'} ms: ${level.ok ? 'held this time' : 'broke again'}`,
    );
    if (level.restarts)
      return {
        level,
        stop: {
          ok: false,
          restarts: level.restarts,
          text: `${pm2Restarts.restartText(level.restarts)} under ${after.rate}/s run again: a restart is no recovery`,
        },
      };
    return { level };
  };

  // Probes at rest, against the baseline (./drift.js rule 1): a stop ({ kind: 'drift', drift }
  // or { kind: 'restarted', level }) or null. The recovery's own last probe serves when it is
  // clear of drift (no probe more); one in the drift's band is followed by more, back to back,
  // up to SETTLE_PROBES: drift when SETTLED in a row are in the band and steady (./recovery.js
  // steadyFastest), none as soon as one is out of it or when they run out still changing.
  const settle = o.fresh
    ? null
    : async (recovered) => {
        if (!state || !baseline) return null;
        // (The recovery's last probe whole: drift is judged by a probe's fastest answer, which
        // its summary { p50, errorsPct } does not carry; read from that summary, every
        // recovered service was once taken as clear of drift without another probe.)
        const last = recovered?.at;
        const seen = [];
        // (Clear of drift by the busy machine's bands only: said as not judged, not as clear.)
        const clear = (probe) => {
          const u = unjudged(baseline, probe);
          return u ? { kind: 'unjudged', unjudged: u, level: probe } : null;
        };
        if (last?.latencyMs) {
          if (!settledDrift(baseline, last)) return clear(last);
          seen.push(last);
        }
        for (let i = 0; i < SETTLE_PROBES; i++) {
          const now = await probe();
          if (now.restarts) return { kind: 'restarted', level: now };
          seen.push(now);
          // (Slowing probe after probe: drift by its trend, in the band or not.)
          if (risingFastest(seen))
            return { kind: 'drift', drift: trendDrift(baseline, seen.slice(-RISING)), level: now };
          const drift = settledDrift(baseline, now);
          if (!drift) {
            if (stillRising(seen)) continue;
            return clear(now);
          }
          if (steadyFastest(seen.filter((l) => settledDrift(baseline, l)))) return { kind: 'drift', drift, level: now };
        }
        return null;
      };

  const down = async () => {
    if (state) await runtime.down();
    state = null;
    release();
  };
  // The service at rest, by its last probe against the baseline (./drift.js rule 1): the
  // evidence the level-based drift rules ask for, or null. (None with `fresh`.)
  const atRest = () => (o.fresh ? null : settledDrift(baseline, lastProbe));

  return { measure, recover, settle, atRest, down, baseline: () => baseline };
}

function existing(dir, re) {
  try {
    return fs.readdirSync(dir).filter((n) => re.test(n)).length;
  } catch {
    return 0;
  }
}

module.exports = { deploymentSession };
