'use strict';

const { spread, repeated, atCap, periodLock, stepsFollowPeriod } = require('../../../lab/analysis/findings');

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
});
