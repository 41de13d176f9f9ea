'use strict';

const { MAX_TRIES } = require('./verify');
const { PROBE_S, SETTLE_PROBES } = require('./recovery');

// How long a capacity search takes: what `--plan` says before it starts, and the bound the
// search keeps while it runs. Both read the same table, so the plan's "at most" is the bound
// itself: a deployment's search starts a level, a probe or a verification run only when its
// longest time still fits in what is left of --time-limit, and it has at most --max-levels
// levels, so it ends by then whatever the service does.
// Seconds, measured on this 2-core machine (Node 20): a child scenario run's own cost besides
// its load (Node, the run folder, the sampler's last flush, the report) is 3-4 s, up to 8 s on
// a busy machine; a deploy 4-8 s, its stores (--with) as much again; the drain after a level
// that broke, its requests' time-out (10 s, the scenario's default).
const T = {
  overhead: 4,
  overheadMax: 8,
  deploy: 8,
  drainMax: 10,
  teardown: 5,
};

// One level (a child run of warm-up + hold seconds): typical and longest.
const levelS = (p, holdS) => p.warmupS + holdS + T.overhead + (p.fresh ? deployS(p) : 0);
const levelMaxS = (p, holdS) => p.warmupS + holdS + T.overheadMax + T.drainMax + (p.fresh ? deployS(p) : 0);
const deployS = (p) => T.deploy * (p.values?.with ? 2 : 1);
// A probe of the service's recovery (no warm-up), and the baseline's (after a warm-up).
const probeS = () => PROBE_S + T.overhead;
const probeMaxS = () => PROBE_S + T.overheadMax + T.drainMax;
// The longest wait for a recovery: probes back to back until the wait is over, the last one
// started just before it.
const recoveryMaxS = (p) => p.recoveryWaitS + probeMaxS();
// The probe at rest once the knee is bracketed: a recovery, then up to SETTLE_PROBES probes.
const settleMaxS = (p) => recoveryMaxS(p) + SETTLE_PROBES * probeMaxS();
// The longest hold of a level at any rate (a level's hold depends on its rate: ./slo.js).
const longestHold = (p) => Math.max(p.holdFor(p.floor), p.holdFor(p.start), p.holdFor(p.maxRate));
const longestVerifyHold = (p) =>
  Math.max(p.verifyHoldFor(p.floor), p.verifyHoldFor(p.start), p.verifyHoldFor(p.maxRate));

// The worst case one deployment's search can take within its bounds, the time limit aside:
// every level of --max-levels at the longest hold and each followed by the longest recovery;
// then the settled probe, every verification try at the longest hold with its recovery, and
// the rate held measured twice again between them.
function worstS(p) {
  const recovering = p.fresh ? 0 : recoveryMaxS(p);
  const start = deployS(p) + (p.fresh ? 0 : p.warmupS + probeMaxS());
  const search = p.maxLevels * (levelMaxS(p, longestHold(p)) + recovering);
  const settle = p.fresh ? 0 : settleMaxS(p);
  const runs = MAX_TRIES * p.repetitions;
  const verification = runs * (levelMaxS(p, longestVerifyHold(p)) + recovering);
  const again = p.fresh ? 0 : 2 * (levelMaxS(p, longestHold(p)) + recovering);
  return Math.ceil(start + search + settle + verification + again + T.teardown);
}

// At most, for one deployment: the worst case, or the time limit when it comes first (plus
// the deployment's teardown after it).
const maxS = (p) => Math.min(worstS(p), p.timeLimitS + T.teardown);

// The least a search needs to give a verified capacity: its deployment and baseline, one
// level, then (as the search starts each only when its longest time fits) the probe at rest
// and every verification run at their longest. A time limit under it can verify nothing.
function verifiedS(p) {
  const start = deployS(p) + (p.fresh ? 0 : p.warmupS + probeS());
  const settle = p.fresh ? 0 : settleMaxS(p);
  return Math.ceil(
    start + levelS(p, p.holdFor(p.start)) + settle + p.repetitions * levelMaxS(p, p.verifyHoldFor(p.start)),
  );
}

// A typical search, for the plan's "about": the knee at `at`/s, its steps up to there (no more
// than --max-levels), about log2(1/precision) bisections, a probe after each break, the last
// level that held measured again, the settled probe, one verification try; with --recheck, the
// lowest rate that broke once more (typically once: twice at most, ./search.js RECHECKS).
function typicalS(p, at) {
  let rate = p.start;
  const levels = [];
  while (rate <= Math.min(at, p.maxRate)) {
    levels.push(rate);
    rate *= 2;
  }
  levels.push(Math.min(rate, p.maxRate));
  const bisections = Math.max(0, Math.min(Math.ceil(Math.log2(1 / p.precision)), p.maxLevels - levels.length));
  levels.splice(p.maxLevels);
  const last = levels.at(-1);
  const level = (r) => levelS(p, p.holdFor(r));
  const recoveries = p.fresh ? 0 : probeS() * (1 + bisections / 2) + level(levels.at(-2) ?? last) + probeS();
  const search =
    levels.reduce((a, r) => a + level(r), 0) + (bisections + (p.recheck ? 1 : 0)) * level(last) + recoveries;
  const verification = p.repetitions * levelS(p, p.verifyHoldFor(last));
  const start = deployS(p) + (p.fresh ? 0 : p.warmupS + probeS());
  return Math.round(start + search + verification + T.teardown);
}

// While a deployment's search runs: why what comes next may not start (null: it may).
//   what: 'level' (at `rate`), 'verification' (at `rate`), 'recovery', 'settle' (a recovery and
//   the probe at rest after it)
function limiter(p, deadlineMs, now = Date.now) {
  const NEED = {
    recovery: () => recoveryMaxS(p),
    settle: () => settleMaxS(p),
    verification: (rate) => levelMaxS(p, p.verifyHoldFor(rate)),
    level: (rate) => levelMaxS(p, p.holdFor(rate)),
  };
  return ({ what, rate }) => {
    const need = NEED[what](rate);
    const left = (deadlineMs - now()) / 1000;
    if (need <= left) return null;
    const next = { recovery: 'wait for a recovery', settle: 'probe at rest' }[what] ?? `${what} at ${rate}/s`;
    return `the search's time limit (--time-limit ${p.timeLimitS} s a deployment) left ${Math.max(0, Math.round(left))} s, and the ${next} may take ${Math.round(need)} s`;
  };
}

module.exports = {
  verifiedS,
  worstS,
  maxS,
  typicalS,
  limiter,
  levelMaxS,
  recoveryMaxS,
  settleMaxS,
  probeMaxS,
  deployS,
  T,
};
