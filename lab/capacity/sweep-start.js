'use strict';

// Where a sweep's next count starts its search (capacity --replicas, and choose's sweeps):
// from what the counts before it measured, not from the fixed --start. N replicas hold at
// most N/M times what M held (the scaling law is never better than linear), so the search
// starts at 3/4 of that linear rate, under the knee unless the count scales well, and steps
// by 1.5 instead of 2: the knee is bracketed in fewer levels, and the level that breaks it
// overloads the service by half, not twice, so it recovers sooner. The first count, or one
// with no measured count below it, starts at --start as any search does.
const SHARE = 0.75;
const FACTOR = 1.5;
const RULE = `each count after the first starts at ${SHARE * 100}% of the rate the largest count measured below it would hold if replicas scaled linearly, and steps by ${FACTOR}x (the first at --start, by 2x)`;

const { roundRate } = require('./search');

// What a count's row gives to aim the next counts at: its verified rate; or, for a count
// stopped below --stop-below, the rate its search held (unverified: where to look, never a
// figure); else null ("at least", or nothing held).
function aimRate(r) {
  if (r.maxRate != null) return r.atLeast ? null : r.maxRate;
  return r.bound === 'stop-below' && r.held?.rate != null ? r.held.rate : null;
}

// results: the sweep's verdicts so far ({ replicas, maxRate, atLeast }); n: the count to
// search; p: { floor, maxRate }. -> { start, factor, from: { replicas, maxRate } } or null.
function countStart(results, n, { floor, maxRate }) {
  const measured = results.filter((r) => r.replicas < n && aimRate(r) !== null);
  if (!measured.length) return null;
  const from = measured.reduce((a, b) => (b.replicas > a.replicas ? b : a));
  const rate = aimRate(from);
  const linear = (rate * n) / from.replicas;
  const start = roundRate(Math.min(maxRate, Math.max(floor, linear * SHARE)));
  return {
    start,
    factor: FACTOR,
    from: { replicas: from.replicas, maxRate: rate, ...(from.maxRate == null ? { unverified: true } : {}) },
  };
}

module.exports = { countStart, aimRate, RULE, SHARE, FACTOR };
