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

// A verdict repeated: the value every repetition gave, or "unstable" when they disagree, with
// the disagreement in words ("nginx in 2; edge-4 in 1").
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
    disagreement:
      distinct.length === 1
        ? null
        : Object.entries(counts)
            .map(([k, n]) => `${k} in ${n}`)
            .join('; '),
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
// buckets: [[ms, count], ...] (lab/measure/histogram.js buckets).
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

// A ratio against a baseline, read in words: within 10% either way is "level" (what two runs
// of one set-up differ by on a busy 2-core machine), below it "slower", above it "faster".
const LEVEL = 0.1;
function versus(r) {
  if (typeof r !== 'number' || !Number.isFinite(r)) return null;
  return r < 1 - LEVEL ? 'slower' : r > 1 + LEVEL ? 'faster' : 'level';
}

// Verdicts of repetitions combined: the one they all give, else "inconclusive" saying they
// disagree. each: [{ verdict, why }].
function agreed(each) {
  const r = repeated(each.map((e) => e.verdict));
  if (!each.length) return { verdict: 'inconclusive', why: 'nothing was measured', of: 0, stable: false };
  if (r.stable) return { verdict: r.value, why: each[0].why, of: r.of, stable: true };
  return {
    verdict: 'inconclusive',
    why: `unstable: the repetitions disagree (${r.disagreement})`,
    of: r.of,
    stable: false,
  };
}

// The claim "a balancer short of CPU makes L7 expensive" (seed 001's L7 at 0.42x of no
// balancer, its ingress at 854m of a 1,000m cap), from one repetition of a sweep of the
// balancer's CPU cap. caps: [{ capPct, l7, l4, l7AtCap }], l7/l4 the r/s against no balancer
// at that cap in the same repetition, l7AtCap whether the L7 balancer was at its cap (atCap).
// "Far" from the seed's ratio is more than 1.5 times it (0.63x for 0.42x).
// Confirmed: at the highest cap L7 is far from the seed's ratio, and it falls to it or below
// at a lower cap where its balancer is at its cap. Refuted: at the lowest cap its balancer
// is at its cap and L7 is still far from it. Inconclusive otherwise (near it already at the
// highest cap; or it falls, but not that far, within the caps run).
const FAR = 1.5;
const SHORT_RULE = (seedRatio) =>
  `confirmed when at the highest cap L7 is far from the seed's ${seedRatio}x against no balancer (above ${FAR} times it) and falls to ${seedRatio}x or below at a lower cap where its balancer is at its cap; refuted when at the lowest cap its balancer is at its cap and L7 is still far from it; inconclusive otherwise, and when the repetitions disagree`;
function shortOfCpu(caps, { seedRatio = 0.42 } = {}) {
  const rows = [...caps].filter((c) => typeof c.l7 === 'number').sort((a, b) => b.capPct - a.capPct);
  if (rows.length < 2) return { verdict: 'inconclusive', why: 'fewer than two caps were measured', fallCap: null };
  const [top, low] = [rows[0], rows.at(-1)];
  const fall = rows.find((r) => r.l7 <= seedRatio && r.l7AtCap) || null;
  const l4Holds = fall && typeof fall.l4 === 'number' ? versus(fall.l4) !== 'slower' : null;
  const x = (r) => `${r.toFixed(2)}x`;
  if (top.l7 <= seedRatio * FAR)
    return {
      verdict: 'inconclusive',
      why: `L7 was already near the seed's ratio at ${top.capPct}% (${x(top.l7)})`,
      fallCap: fall ? fall.capPct : null,
      l4Holds,
    };
  if (fall)
    return {
      verdict: 'confirmed',
      why: `L7 went from ${x(top.l7)} at ${top.capPct}% to ${x(fall.l7)} at ${fall.capPct}% of a core, its balancer at its cap`,
      fallCap: fall.capPct,
      l4Holds,
      l4: fall.l4 ?? null,
      l7: fall.l7,
    };
  if (low.l7AtCap && low.l7 > seedRatio * FAR)
    return {
      verdict: 'refuted',
      why: `at ${low.capPct}% its balancer was at its cap and L7 was still at ${x(low.l7)}`,
      fallCap: null,
      l4Holds: null,
    };
  return {
    verdict: 'inconclusive',
    why: `L7 fell to ${x(low.l7)} at the lowest cap (${low.capPct}%)${low.l7 <= seedRatio ? ', its balancer not at its cap' : `, not to the seed's ${seedRatio}x`}`,
    fallCap: null,
    l4Holds: null,
  };
}

// The claim "3 and 5 servers are close when the servers are not CPU-bound", from one
// repetition of each regime: gain = 1 - mean(5 servers) / mean(3 servers) at the top client
// level; serverShare = the busiest server's CPU over its cap there (3 or 5 servers).
// Confirmed: in the regime whose servers are at their cap the gain is not close (20% or
// more), and in the one whose servers are well under it (under half) the gain is close
// (under 20%, as the seed's 7% and 16%). Refuted: servers well under their cap and the gain
// still not close. Inconclusive when no regime had its servers well under their cap.
const GAIN = { close: 0.2, bound: 0.75, free: 0.5 };
const REGIME_RULE = `"close" is a 3 -> 5 gain under ${GAIN.close * 100}% (the seed's were 7% and 16%); servers are CPU-bound when the busiest used at least ${GAIN.bound * 100}% of its cap, not CPU-bound when under ${GAIN.free * 100}%; confirmed when the CPU-bound regime's gain is not close and the other's is, refuted when servers under half their cap still gain 20% or more, inconclusive otherwise and when the repetitions disagree`;
function closeWhenFree(regimes) {
  const bound = regimes.find((r) => r.serverShare != null && r.serverShare >= GAIN.bound);
  const free = regimes.find((r) => r.serverShare != null && r.serverShare < GAIN.free);
  const pct = (g) => `${Math.round(g * 100)}%`;
  if (!free || typeof free.gain !== 'number')
    return { verdict: 'inconclusive', why: 'no regime had its servers well under their cap' };
  if (free.gain >= GAIN.close)
    return {
      verdict: 'refuted',
      why: `with the servers at ${pct(free.serverShare)} of their cap (${free.label}), 5 servers still gained ${pct(free.gain)} over 3`,
    };
  if (bound && typeof bound.gain === 'number' && bound.gain >= GAIN.close)
    return {
      verdict: 'confirmed',
      why: `CPU-bound (${bound.label}) 3 -> 5 gained ${pct(bound.gain)}; with the servers at ${pct(free.serverShare)} of their cap (${free.label}) ${pct(free.gain)}`,
    };
  return {
    verdict: 'inconclusive',
    why: bound
      ? `the CPU-bound regime's gain (${pct(bound.gain)}) was close as well`
      : 'no regime had its servers at their cap',
  };
}

// The claim "an RSS slope measured without a limit over-charges each connection": at the same
// connection count, the process without a limit against the one under it. rows: [{ limitMiB,
// count, rssFree, rssLimited, majorFree, majorLimited }] (bytes; major collections so far).
// Confirmed: at every limit compared, RSS without the limit is at least 10% above RSS under
// it, and V8 ran more major collections under it (it reclaimed what the free process kept).
// Refuted: RSS without the limit is within 10% of RSS under it at every limit (the slope is
// what a connection costs). Inconclusive otherwise, or with nothing to compare.
const OVERCHARGE = 0.1;
const OVERCHARGE_RULE = `confirmed when, at the same connection count and at every limit compared, the RSS without a limit is at least ${OVERCHARGE * 100}% above the RSS under it and V8 ran more major collections under it; refuted when the two RSS are within ${OVERCHARGE * 100}% at every limit; inconclusive otherwise`;
function rssOvercharges(rows) {
  const ok = rows.filter((r) => r.rssFree > 0 && r.rssLimited > 0);
  if (!ok.length) return { verdict: 'inconclusive', why: 'no limit reached a count the free run also held' };
  const over = ok.map((r) => r.rssFree / r.rssLimited - 1);
  const moreGc = ok.every((r) => r.majorLimited != null && r.majorFree != null && r.majorLimited > r.majorFree);
  const range = `${Math.round(Math.min(...over) * 100)}% to ${Math.round(Math.max(...over) * 100)}%`;
  if (over.every((o) => o >= OVERCHARGE) && moreGc)
    return {
      verdict: 'confirmed',
      why: `RSS without the limit was ${range} above RSS under it at the same count, with more major collections under it`,
    };
  if (over.every((o) => Math.abs(o) < OVERCHARGE))
    return { verdict: 'refuted', why: `RSS without and under the limit were within 10% (${range})` };
  return {
    verdict: 'inconclusive',
    why: `RSS without the limit was ${range} above RSS under it${moreGc ? '' : ', and the collections did not rise under the limit everywhere'}`,
  };
}

// How busy the machine was in one run: every node's sampled CPU (the generator is one of the
// nodes) over its cores, a fraction; null when the run has no node table or no core count.
function machineShare(s) {
  const rows = (s && s.nodes && s.nodes.rows) || [];
  const cores = s && s.machine && s.machine.cores;
  if (!rows.length || !cores) return null;
  return rows.reduce((a, r) => a + (r.cpuPctMean || 0), 0) / (cores * 100);
}

// The machine over repeated runs: its cores, the spread of its busy share and of the
// generator's CPU (% of a core), and whether it was the limit. One machine drives and serves
// the load: above this share of its cores busy in every run, a rate is read as what this
// machine allows, a floor of what the deployment would do elsewhere. Null with no figures.
const MACHINE_BOUND = 0.8;
const MACHINE_RULE = `this machine is the limit when every node's CPU and the generator's add up to at least ${MACHINE_BOUND * 100}% of its cores in every run`;
function machineBusy(summaries) {
  const runs = summaries.filter((s) => machineShare(s) !== null);
  if (!runs.length) return null;
  const share = spread(runs.map(machineShare));
  const generator = spread(runs.map((s) => s.generator && s.generator.cpuPctMean));
  return { cores: runs[0].machine.cores, share, generator, bound: share.min >= MACHINE_BOUND };
}

module.exports = {
  machineShare,
  machineBusy,
  MACHINE_BOUND,
  MACHINE_RULE,
  rssOvercharges,
  OVERCHARGE_RULE,
  spread,
  repeated,
  agreed,
  atCap,
  AT_CAP_RULE,
  periodLock,
  stepsFollowPeriod,
  versus,
  shortOfCpu,
  SHORT_RULE,
  closeWhenFree,
  REGIME_RULE,
  GAIN,
};
