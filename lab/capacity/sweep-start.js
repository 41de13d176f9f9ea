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

// results: the sweep's verdicts so far ({ replicas, maxRate, atLeast }); n: the count to
// search; p: { floor, maxRate }. -> { start, factor, from: { replicas, maxRate } } or null.
function countStart(results, n, { floor, maxRate }) {
  const measured = results.filter((r) => r.replicas < n && r.maxRate != null && !r.atLeast);
  if (!measured.length) return null;
  const from = measured.reduce((a, b) => (b.replicas > a.replicas ? b : a));
  const linear = (from.maxRate * n) / from.replicas;
  const start = roundRate(Math.min(maxRate, Math.max(floor, linear * SHARE)));
  return { start, factor: FACTOR, from: { replicas: from.replicas, maxRate: from.maxRate } };
}

module.exports = { countStart, RULE, SHARE, FACTOR };
