'use strict';

const { judgePooled } = require('./level');

// The verification of a rate the search found: `repetitions` longer runs at it (twice a
// level's hold), judged together: it holds when every SLO holds on the runs pooled (their
// histograms merged: judgePooled in ./level.js), never by averaging their percentiles. A rate
// that does not hold is stepped down: first twice by the search's precision, then in growing
// steps (2, 4, 8... times the precision, half at most) to the floor, MAX_TRIES tries in all,
// until one holds. At a noisy knee the 5% steps alone once stopped at "held 2 of 3, 1 of 3, 2
// of 3": no verified rate on a service that plainly held a little lower.
const MAX_TRIES = 7;
const RULE =
  'every SLO held on the verification runs pooled (their per-second histograms merged, errors summed; percentiles never averaged)';

// How far each try steps down from the one before: the precision twice, then growing.
function stepDown(precision, tries) {
  if (tries < 2) return precision;
  return Math.min(0.5, precision * 2 ** (tries - 1));
}

// -> [{ rate, ok, runs, pooled }], the last one the verdict's. `recover(level)` (or null) after
// a run that broke, as between the search's levels; a service that does not recover ends it.
async function verify(p, found, { measure, recover = null, log = () => {}, name }) {
  let rate = found.held.rate;
  const attempts = [];
  for (let tries = 0; tries < MAX_TRIES && rate >= p.floor; tries++) {
    const runs = [];
    let stuck = null;
    for (let i = 0; i < p.repetitions && !stuck; i++) {
      const run = await measure(rate, 2 * p.holdFor(rate));
      runs.push(run);
      if (!run.ok && recover && !run.resumed) {
        const r = await recover(run);
        if (!r.ok) stuck = r;
      }
    }
    const pooled =
      runs.length > 1 ? judgePooled(runs, { slos: p.slos, expect: p.expect }) : { ok: runs[0].ok, runs: 1 };
    const ok = pooled.ok && !stuck && runs.length === p.repetitions;
    attempts.push({ rate, ok, runs, pooled, ...(stuck ? { notRecovered: stuck } : {}) });
    log(
      `${name}: verification at ${rate}/s: ${runs.filter((r) => r.ok).length} of ${runs.length} held on its own; pooled: ${pooled.ok ? 'held' : 'broke'}${pooled.latencyMs ? ` (p99 ${pooled.latencyMs.p99} ms)` : ''}${stuck ? `; ${stuck.text}` : ''}`,
    );
    if (ok || stuck) break;
    rate = Math.round(rate * (1 - stepDown(p.precision, tries)) * 10) / 10;
  }
  return attempts;
}

module.exports = { verify, stepDown, MAX_TRIES, RULE };
