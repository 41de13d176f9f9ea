'use strict';

const os = require('node:os');
const { aimRate } = require('./sweep-start');

// capacity --replicas 1,2 --replicas-for R (choose's default sweep): after the counts given,
// the sweep measures where the rate R is expected to land and the count above it, so that its
// points bracket the answer instead of stopping at a fixed 4 (issue 82). Expected from the
// first two counts measured (a verified rate each, or what a count stopped by --stop-below held
// in its search: ./sweep-start.js's aimRate; never an "at least"): the scaling law with
// contention alone (Amdahl: X(n) = X(n1) * k / (1 + sigma * (k - 1)), k = n / n1), sigma from
// the two points and never below 0, so the curve is never better than linear. A target the
// curve never reaches is bracketed at the largest count allowed. Counts are at most --max-
// replicas, and at most what this machine can give its CPU share while a core stays for the
// generator and the balancer: a count past that would measure the machine, not the service.
const RULE =
  "then the count where the rate is expected to land, and the one above it (expected from the first two counts measured, by the scaling law's contention term, never better than linear), within --max-replicas and what this machine's cores hold with one left for the generator";

// The most replicas this machine can run at `cpuPct`% of a core each with a core left over
// (uncapped: a core each).
function machineCount(cpuPct, cores = os.cpus().length) {
  const share = cpuPct ? cpuPct / 100 : 1;
  return Math.max(1, Math.floor((cores - 1) / share + 1e-9));
}

// The expected rate at n replicas from two measured points.
function curveOf(a, b) {
  const k = b.replicas / a.replicas;
  const sigma = Math.max(0, (k * a.maxRate) / b.maxRate - 1) / (k - 1);
  return { sigma, at: (n) => (a.maxRate * (n / a.replicas)) / (1 + sigma * (n / a.replicas - 1)) };
}

// results: the sweep's rows so far; rate: R; most: the largest count allowed. -> { counts,
// text } (counts: the ones still to measure, ascending; text: why, for the log).
function countsFor(results, rate, most) {
  const measured = new Set(results.map((r) => r.replicas));
  // (A count stopped below --stop-below aims by the rate its search held: ./sweep-start.js.)
  const aims = results
    .filter((r) => aimRate(r) !== null)
    .map((r) => ({ replicas: r.replicas, maxRate: aimRate(r) }))
    .sort((x, y) => x.replicas - y.replicas);
  if (aims.length < 2)
    return { counts: [], text: `no count added: ${rate}/s needs two counts measured with a verified rate to aim at` };
  const curve = curveOf(aims[0], aims[1]);
  let n = 1;
  while (n < most && curve.at(n) < rate) n += 1;
  const reached = curve.at(n) >= rate;
  const counts = [n, n + 1].filter((c) => c <= most && !measured.has(c));
  const from = `${aims[0].replicas} and ${aims[1].replicas} replica(s) held ${aims[0].maxRate}/s and ${aims[1].maxRate}/s`;
  const where = reached
    ? `${n} replica(s) expected to hold ${rate}/s (${Math.round(curve.at(n) * 10) / 10}/s)`
    : `${rate}/s is past what up to ${most} replica(s) are expected to hold (${Math.round(curve.at(n) * 10) / 10}/s at ${n})`;
  return {
    counts,
    text: `${from}: ${where}; ${counts.length ? `measuring ${counts.join(' and ')} too` : 'no count left to measure'}`,
  };
}

// The counts a sweep adds after its own (p: the capacity plan), said through say(text).
function moreCounts(p, results, say) {
  if (!p.countsFor) return [];
  const more = countsFor(results, p.countsFor, p.maxCount);
  say(`--replicas-for ${p.countsFor}: ${more.text}`);
  return more.counts;
}

module.exports = { RULE, countsFor, moreCounts, machineCount, curveOf };
