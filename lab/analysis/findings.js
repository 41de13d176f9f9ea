'use strict';

// The rules the studies' verdicts are computed by: pure functions of measured figures, each
// giving its verdict with the rule it used, so a report can print both and a test can reach
// every outcome from synthetic results.

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

// The spread of repeated measurements: median, min, max, and (max - min) / median.
function spread(values) {
  const xs = values.filter((v) => typeof v === 'number' && Number.isFinite(v));
  if (!xs.length) return { n: 0, median: null, min: null, max: null, relative: null };
  const med = median(xs);
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  return { n: xs.length, median: med, min, max, relative: med > 0 ? (max - min) / med : null };
}

// A verdict repeated: the value every repetition gave, or "unstable" when they disagree.
// values: one per repetition (a string; a list is read as the set it names).
function repeated(values) {
  const keys = values.map((v) => (Array.isArray(v) ? [...v].sort().join(', ') || 'none' : String(v)));
  const counts = {};
  for (const k of keys) counts[k] = (counts[k] || 0) + 1;
  const distinct = Object.keys(counts);
  return {
    value: distinct.length === 1 ? distinct[0] : 'unstable',
    stable: distinct.length === 1,
    of: keys.length,
    counts,
  };
}

// "At its cap", for a capped node's row of the node table: the OOM killer acted, or its group
// got at least 75% of the CPU it was allowed, or it was throttled in at least half of its CFS
// periods while using at least 40% of its allowance. The third reading is the one a quota
// spent in bursts needs: such a node waits in most periods while its mean CPU stays low.
const AT_CAP = { cpuShare: 0.75, throttledPct: 50, cpuShareThrottled: 0.4 };
function atCap(r) {
  if (!r.cpuCapPct && !r.memLimitMiB) return false;
  if (r.oomKills > 0) return true;
  if (!r.cpuCapPct || r.cgroupCpuPct == null) return false;
  const share = r.cgroupCpuPct / r.cpuCapPct;
  if (share >= AT_CAP.cpuShare) return true;
  return r.throttledPct != null && r.throttledPct >= AT_CAP.throttledPct && share >= AT_CAP.cpuShareThrottled;
}
const AT_CAP_RULE =
  'a node is at its cap when the OOM killer acted, or its group got at least 75% of its CPU allowance, or it was throttled in at least half of its CFS periods while using at least 40% of it';

// Where a latency distribution's slow answers end, against a CFS period P: the share of
// answers slower than `floorMs` that end in the last fifth of a period or just past its end
// ([kP - 0.2P, kP + 0.05P], k >= 1). A throttled request waits for the next period's quota,
// so answers pile up just under multiples of P; spread evenly they would fill a quarter.
// buckets: [[ms, count], ...] (lab/generators/histogram.js buckets).
function periodLock(buckets, periodMs, { floorMs = 5 } = {}) {
  let slow = 0;
  let locked = 0;
  for (const [ms, n] of buckets) {
    if (ms < floorMs) continue;
    slow += n;
    const k = Math.round(ms / periodMs);
    const into = ms - k * periodMs; // distance past the nearest multiple
    if ((k >= 1 && into >= -0.2 * periodMs && into <= 0.05 * periodMs) || (k === 0 && ms >= 0.8 * periodMs))
      locked += n;
  }
  return { slow, share: slow ? locked / slow : null };
}

// The claim "the CFS period makes the latency steps", from runs at one CPU share over
// different periods: each run's slow answers are measured against its own period and the
// others'. Confirmed: in every run at least half of the slow answers sit at its own period's
// steps, and in the run with the shortest period under 35% sit at the longest period's (the
// steps moved with the period; multiples of a long period are also multiples of a short one,
// so only that direction tells them apart). Refuted: the runs with a longer period do not
// lock to it (under 35%) while they still lock to the shortest one's: the steps stayed put.
// Inconclusive otherwise, or with fewer than 30 slow answers in a run. A run's slow answers
// are those slower than a quarter of its own period.
// runs: [{ label, periodMs, buckets }]
const LOCK = { yes: 0.5, no: 0.35, minSlow: 30 };
function stepsFollowPeriod(runs) {
  const rule = `steps follow the period when, in every run, at least ${LOCK.yes * 100}% of the answers slower than a quarter of its period end in the last fifth of one of its own periods (or up to 5% past it; about 25% if they were spread evenly), and in the shortest-period run under ${LOCK.no * 100}% end at the longest period's; refuted when the longer-period runs lock to the shortest period but not to their own`;
  const periods = [...new Set(runs.map((r) => r.periodMs))].sort((a, b) => a - b);
  const table = runs.map((r) => ({
    label: r.label,
    periodMs: r.periodMs,
    // Slow: waited at least a quarter of the run's own period, whichever period it is read at.
    ...Object.fromEntries(periods.map((p) => [p, periodLock(r.buckets, p, { floorMs: r.periodMs / 4 })])),
  }));
  if (periods.length < 2)
    return { verdict: 'inconclusive', why: 'fewer than two periods were run', rule, table, periods };
  const thin = table.find((t) => (t[t.periodMs].slow ?? 0) < LOCK.minSlow);
  if (thin)
    return { verdict: 'inconclusive', why: `${thin.label}: under ${LOCK.minSlow} slow answers`, rule, table, periods };
  const [shortest, longest] = [periods[0], periods.at(-1)];
  const own = table.every((t) => t[t.periodMs].share >= LOCK.yes);
  const shortRuns = table.filter((t) => t.periodMs === shortest);
  const longRuns = table.filter((t) => t.periodMs !== shortest);
  const movedAway = shortRuns.every((t) => t[longest].share < LOCK.no);
  if (own && movedAway)
    return { verdict: 'confirmed', why: "each run's slow answers end at its own period's steps", rule, table, periods };
  const stayed = longRuns.every((t) => t[t.periodMs].share < LOCK.no && t[shortest].share >= LOCK.yes);
  if (stayed)
    return {
      verdict: 'refuted',
      why: "with a longer period the answers still end at the shorter period's steps",
      rule,
      table,
      periods,
    };
  return { verdict: 'inconclusive', why: 'the runs lock to neither pattern clearly', rule, table, periods };
}

module.exports = { spread, repeated, atCap, AT_CAP_RULE, periodLock, stepsFollowPeriod };
