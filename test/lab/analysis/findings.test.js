'use strict';

const {
  spread,
  repeated,
  agreed,
  atCap,
  periodLock,
  stepsFollowPeriod,
  versus,
  shortOfCpu,
  closeWhenFree,
  rssOvercharges,
  machineShare,
  machineBusy,
} = require('../../../lab/analysis/findings');

// Synthetic latency distributions as [ms, count] buckets: `fast` answers under 5 ms, and
// slow ones at the given values.
const dist = (slow, fast = 500) => [[2, fast], ...slow.map((ms) => [ms, 1])];
const around = (centre, n, width = 4) => Array.from({ length: n }, (_, i) => centre - width / 2 + (width * i) / n);
const uniform = (from, to, n) => Array.from({ length: n }, (_, i) => from + ((to - from) * (i + 0.5)) / n);

describe("the rules behind the studies' verdicts (lab/analysis/findings.js)", () => {
  test('spread: median, range and relative spread of repeated figures; nothing measured is null', () => {
    expect(spread([10, 12, 11])).toEqual({ n: 3, median: 11, min: 10, max: 12, relative: 2 / 11 });
    expect(spread([10, 20])).toMatchObject({ median: 15 });
    expect(spread([null, undefined])).toMatchObject({ n: 0, median: null });
  });

  test('repeated: one value when every repetition agrees, "unstable" with the counts when not', () => {
    expect(repeated([['nginx'], ['nginx'], ['nginx']])).toMatchObject({ value: 'nginx', stable: true, of: 3 });
    // A set is a set: the order of its names does not matter; an empty one is "none".
    expect(
      repeated([
        ['edge-1', 'nginx'],
        ['nginx', 'edge-1'],
      ]).value,
    ).toBe('edge-1, nginx');
    expect(repeated([[], []]).value).toBe('none');
    const u = repeated([['nginx'], ['edge-4'], ['nginx']]);
    expect(u).toMatchObject({ value: 'unstable', stable: false, counts: { nginx: 2, 'edge-4': 1 } });
  });

  test('at its cap: OOM kills, 75% of the allowance, or throttled in half its periods at 40% of it', () => {
    const row = (o) => ({ cpuCapPct: 2, memLimitMiB: 25, cgroupCpuPct: 0.2, throttledPct: 0, oomKills: 0, ...o });
    expect(atCap(row({ oomKills: 1 }))).toBe(true);
    expect(atCap(row({ cgroupCpuPct: 1.6 }))).toBe(true);
    // A quota spent in bursts: mean CPU 1.0 of 2 (50%), throttled in 80% of its periods.
    expect(atCap(row({ cgroupCpuPct: 1.0, throttledPct: 80 }))).toBe(true);
    // Throttled now and then with little CPU: a burst, not a node at its cap.
    expect(atCap(row({ cgroupCpuPct: 0.4, throttledPct: 80 }))).toBe(false);
    expect(atCap(row({ cgroupCpuPct: 1.0, throttledPct: 20 }))).toBe(false);
    expect(atCap({ cpuCapPct: null, memLimitMiB: null, cgroupCpuPct: 50 })).toBe(false);
  });

  test('period lock: answers piled just under multiples of P score high, spread evenly about a quarter', () => {
    expect(periodLock(dist(around(96, 100)), 100, { floorMs: 25 }).share).toBe(1);
    expect(periodLock(dist(around(96, 100)), 500, { floorMs: 25 }).share).toBe(0);
    const even = periodLock(dist(uniform(25, 1025, 1000)), 100, { floorMs: 25 }).share;
    expect(even).toBeGreaterThan(0.2);
    expect(even).toBeLessThan(0.3);
    // Fast answers are not counted at all.
    expect(periodLock(dist([]), 100, { floorMs: 25 })).toEqual({ slow: 0, share: null });
  });

  describe('the CFS period claim: each outcome reachable', () => {
    const run = (label, periodMs, slow) => ({ label, periodMs, buckets: dist(slow) });

    test('confirmed: steps at ~100 ms with 100 ms periods, at ~500 ms with 500 ms periods', () => {
      const v = stepsFollowPeriod([
        run('a', 100, [...around(96, 60), ...around(196, 20)]),
        run('b', 500, around(470, 60, 20)),
      ]);
      expect(v.verdict).toBe('confirmed');
      expect(v.periods).toEqual([100, 500]);
      expect(v.rule).toMatch(/quarter of its period/);
    });

    test('refuted: with 500 ms periods the answers still end just under multiples of 100 ms', () => {
      const v = stepsFollowPeriod([
        run('a', 100, around(96, 60)),
        run('b', 500, [...around(196, 30), ...around(296, 30)]),
      ]);
      expect(v.verdict).toBe('refuted');
    });

    test('inconclusive: answers spread evenly, too few slow answers, or one period only', () => {
      expect(
        stepsFollowPeriod([run('a', 100, uniform(25, 1000, 200)), run('b', 500, uniform(125, 2000, 200))]).verdict,
      ).toBe('inconclusive');
      const thin = stepsFollowPeriod([run('a', 100, around(96, 10)), run('b', 500, around(470, 60))]);
      expect(thin).toMatchObject({ verdict: 'inconclusive', why: expect.stringMatching(/under 30 slow answers/) });
      expect(stepsFollowPeriod([run('a', 100, around(96, 60))]).verdict).toBe('inconclusive');
    });
  });

  test('versus: within 10% is level, below slower, above faster; nothing measured is null', () => {
    expect([0.95, 1.08, 0.85, 1.2, null, NaN].map(versus)).toEqual(['level', 'level', 'slower', 'faster', null, null]);
  });

  test('agreed: the verdict every repetition gives, else inconclusive naming the disagreement', () => {
    const c = { verdict: 'confirmed', why: 'x' };
    expect(agreed([c, c, c])).toMatchObject({ verdict: 'confirmed', why: 'x', of: 3, stable: true });
    expect(agreed([c, { verdict: 'refuted', why: 'y' }])).toMatchObject({
      verdict: 'inconclusive',
      why: 'unstable: the repetitions disagree (confirmed in 1; refuted in 1)',
      stable: false,
    });
    expect(agreed([])).toMatchObject({ verdict: 'inconclusive', why: 'nothing was measured' });
  });

  describe('the balancer short of CPU (lb-modes): each outcome reachable', () => {
    const sweep = (l7, atCapFrom, l4 = l7.map(() => 1)) =>
      [100, 50, 25, 10, 5].map((capPct, i) => ({ capPct, l7: l7[i], l4: l4[i], l7AtCap: capPct <= atCapFrom }));

    test("confirmed: far from the seed's 0.42x at 100%, at it at 10% with its balancer at its cap", () => {
      const v = shortOfCpu(sweep([0.85, 0.8, 0.7, 0.4, 0.2], 25, [1, 1, 1, 0.95, 0.6]));
      expect(v).toMatchObject({ verdict: 'confirmed', fallCap: 10, l4Holds: true, l4: 0.95, l7: 0.4 });
      expect(v.why).toBe('L7 went from 0.85x at 100% to 0.40x at 10% of a core, its balancer at its cap');
      expect(shortOfCpu(sweep([0.98, 0.97, 0.8, 0.4, 0.2], 25, [1, 1, 0.9, 0.5, 0.3])).l4Holds).toBe(false);
    });

    test('refuted: at its cap at the lowest cap and L7 still far from the seed', () => {
      expect(shortOfCpu(sweep([1, 1, 0.99, 0.97, 0.7], 10)).verdict).toBe('refuted');
    });

    test("inconclusive: falls but not to the seed's ratio, near it already uncapped, not at its cap, or too few caps", () => {
      expect(shortOfCpu(sweep([1, 0.95, 0.8, 0.6, 0.5], 25))).toMatchObject({
        verdict: 'inconclusive',
        why: expect.stringMatching(/not to the seed's 0.42x/),
      });
      expect(shortOfCpu(sweep([0.6, 0.5, 0.4, 0.3, 0.2], 25)).why).toMatch(/already near the seed's ratio/);
      expect(shortOfCpu([{ capPct: 100, l7: 1 }]).verdict).toBe('inconclusive');
      // Falls to 0.42x, but its balancer was not at its cap there: not the claim's mechanism.
      expect(shortOfCpu(sweep([1, 0.9, 0.4, 0.3, 0.2], -1))).toMatchObject({
        verdict: 'inconclusive',
        why: expect.stringMatching(/its balancer not at its cap/),
      });
    });
  });

  describe('3 and 5 servers close when the servers are not CPU-bound (balancers): each outcome reachable', () => {
    const bound = (gain, serverShare = 0.95) => ({ label: 'bound', gain, serverShare });
    const light = (gain, serverShare = 0.2) => ({ label: 'light', gain, serverShare });

    test('confirmed: 39% at the cap, 8% well under it', () => {
      expect(closeWhenFree([bound(0.39), light(0.08)])).toMatchObject({
        verdict: 'confirmed',
        why: 'CPU-bound (bound) 3 -> 5 gained 39%; with the servers at 20% of their cap (light) 8%',
      });
    });

    test('refuted: well under their cap, 5 servers still gain 30%', () => {
      expect(closeWhenFree([bound(0.39), light(0.3)]).verdict).toBe('refuted');
    });

    test('inconclusive: the light regime still near its cap, or both regimes close', () => {
      expect(closeWhenFree([bound(0.39), light(0.08, 0.7)])).toMatchObject({
        verdict: 'inconclusive',
        why: 'no regime had its servers well under their cap',
      });
      expect(closeWhenFree([bound(0.1), light(0.05)]).why).toMatch(/close as well/);
    });
  });

  describe('RSS slopes over-charge under memory pressure (signaling): each outcome reachable', () => {
    const MiB = 2 ** 20;
    const row = (rssFree, rssLimited, majorFree = 3, majorLimited = 9) => ({
      limitMiB: 100,
      count: 2000,
      rssFree: rssFree * MiB,
      rssLimited: rssLimited * MiB,
      majorFree,
      majorLimited,
    });

    test('confirmed: more RSS free than limited at the same count, more major GCs under the limit', () => {
      expect(rssOvercharges([row(120, 90), row(150, 100)])).toMatchObject({
        verdict: 'confirmed',
        why: expect.stringMatching(/33% to 50% above/),
      });
    });

    test('refuted: the two within 10%', () => {
      expect(rssOvercharges([row(95, 92), row(100, 98)]).verdict).toBe('refuted');
    });

    test('inconclusive: over-charged without more collections, mixed, or nothing to compare', () => {
      expect(rssOvercharges([row(120, 90, 9, 3)]).why).toMatch(/did not rise/);
      expect(rssOvercharges([row(120, 90), row(95, 94)]).verdict).toBe('inconclusive');
      expect(rssOvercharges([]).verdict).toBe('inconclusive');
    });
  });

  describe('this machine as the limit: every node and the generator over its cores', () => {
    // A run's summary as the lab writes it: the generator is one of the node table's rows.
    const run = (cpus, cores = 2, generator = cpus.at(-1)) => ({
      machine: { cores },
      nodes: {
        rows: cpus.map((c, i) => ({ node: i === cpus.length - 1 ? 'generator' : `replica-${i + 1}`, cpuPctMean: c })),
      },
      generator: { cpuPctMean: generator },
    });

    test("one run's share: the sum over the cores; nothing to read is null", () => {
      expect(machineShare(run([90, 40, 50]))).toBeCloseTo(0.9);
      expect(machineShare(run([90, 40, 50], 4))).toBeCloseTo(0.45);
      expect(machineShare({ machine: { cores: 2 }, nodes: { rows: [] } })).toBeNull();
      expect(machineShare({ nodes: { rows: [{ cpuPctMean: 50 }] } })).toBeNull();
      expect(machineShare(null)).toBeNull();
    });

    test('bound only when every run is at 80% or more; runs without figures are left out', () => {
      const b = machineBusy([run([90, 40, 50]), run([80, 30, 55]), { status: 'failed' }]);
      expect(b).toMatchObject({ cores: 2, bound: true });
      expect(b.share.min).toBeCloseTo(0.825);
      expect(b.generator).toMatchObject({ n: 2, min: 50, max: 55 });
      expect(machineBusy([run([90, 40, 50]), run([70, 30, 55])]).bound).toBe(false);
      expect(machineBusy([{ status: 'failed' }])).toBeNull();
    });
  });
});
