'use strict';

const {
  screenPoint,
  boundOf,
  orderByBound,
  worthSweeping,
  sweepCounts,
  prunedText,
} = require('../../../lab/choose/screen');

// A unit's screen: its one replica held `held`/s and broke at `broke`/s.
const unit = (id, capPct, held, broke, more = {}) => ({
  s: { id, capPct, label: id },
  point: { maxRate: held, broke, memoryMiB: 50, ...more },
});
const o = { want: 130, maxReplicas: 32, price: null, cores: 8 };

test('a screen point: its one replica, the rate it held, the lowest that broke above, and why it is "at least"', () => {
  expect(screenPoint([{ replicas: 1, maxRate: 80, broke: 88, memoryMiB: 51 }])).toEqual({
    maxRate: 80,
    broke: 88,
    memoryMiB: 51,
  });
  expect(screenPoint([{ replicas: 1, maxRate: 20, leftOut: 'at --max-rate' }])).toEqual({
    maxRate: 20,
    broke: null,
    atLeast: 'at --max-rate',
    memoryMiB: null,
  });
  // The highest rate its levels broke at, not the lowest above the one held: a level after an
  // overload breaks early (a screen broke at 800/s, then at 600/s, and its sweep held 930.7/s).
  expect(screenPoint([{ replicas: 1, maxRate: 550, broke: 600, highestBroke: 800 }])).toMatchObject({
    maxRate: 550,
    broke: 800,
  });
  expect(screenPoint([{ replicas: 1, maxRate: null }])).toBeNull();
  expect(screenPoint([])).toBeNull();
});

test('the bound rests on the rate that broke, never the rate held: a capacity measured low never prunes a unit', () => {
  // Held 60, broke 66 (so at most 82.5 with the screen's margin): 130/s needs 2 replicas at
  // least, not 3 (130/60 = 2.17).
  const b = boundOf(unit('a', 25, 60, 66), o);
  expect(b).toMatchObject({ replicas: 2, cores: 0.5 });
  expect(b.text).toMatch(
    /^1 replica held 60\/s in its screen and broke at up to 66\/s \(so at most 82\.5\/s, with 25% for a screen's noise\): 2 replica\(s\) at least \(0\.5 cores\)/,
  );
  // The margin: broke at 52, so at most 65, and 130/65 = 2 exactly (without it, 130/52 = 2.5: 3).
  expect(boundOf(unit('a', 25, 50, 52), o).replicas).toBe(2);
  // Nothing broke, or its search stopped before the service did: one replica is all it bounds.
  expect(boundOf(unit('a', 25, 60, null), o).replicas).toBe(1);
  expect(boundOf(unit('a', 25, 20, 22, { atLeast: 'the generator' }), o).replicas).toBe(1);
});

test('a bound past --max-replicas or past what this machine holds is refused, saying which', () => {
  expect(boundOf(unit('a', 25, 3, 4), { ...o, maxReplicas: 16 }).refused).toMatch(
    /130\/s needs more than 16 replicas \(--max-replicas\) even if they scaled linearly/,
  );
  // 2 cores, one for the generator: 2 replicas of half a core at most; 130/50 needs 3.
  expect(boundOf(unit('a', 50, 40, 50), { ...o, cores: 2 }).refused).toMatch(
    /needs 3 replicas at least, and this machine holds 2 of 50% of a core with a core left for the generator/,
  );
  expect(boundOf({ s: { capPct: 25 }, point: null, failed: 'its capacity screen was failed' }, o)).toEqual({
    refused: 'its capacity screen was failed',
  });
});

test('the units in the order of their bounds: the fewest cores first, the most held first among equals, the refused last', () => {
  const order = orderByBound(
    [
      unit('half', 50, 90, 100), // 2 x 0.5 = 1 core
      unit('quarter', 25, 70, 75), // 2 x 0.25 = 0.5 cores
      unit('refused', 25, null, null),
      unit('quarter-b', 25, 66, 68), // 2 x 0.25 = 0.5 cores, less held
    ].map((u) => (u.point.maxRate === null ? { ...u, point: null } : u)),
    o,
  );
  expect(order.map((u) => [u.s.id, u.bound.cores ?? 'refused'])).toEqual([
    ['quarter', 0.5],
    ['quarter-b', 0.5],
    ['half', 1],
    ['refused', 'refused'],
  ]);
  // With prices, by cost a month (memory included): the larger replica's memory costs less.
  const priced = orderByBound(
    [unit('small', 25, 33, 34, { memoryMiB: 4000 }), unit('big', 50, 66, 70, { memoryMiB: 100 })],
    { ...o, price: { cpu: 0.01, memory: 0.01 } },
  );
  expect(priced.map((u) => u.s.id)).toEqual(['big', 'small']);
});

test('a unit is swept only while it might be cheaper than the cheapest count measured to hold', () => {
  const [u] = orderByBound([unit('a', 25, 60, 66)], o); // 0.5 cores at least
  expect(worthSweeping(u, null, null)).toBe(true);
  expect(worthSweeping(u, { cores: 0.75 }, null)).toBe(true);
  // As cheap as its bound, or cheaper: no count of this unit can beat it.
  expect(worthSweeping(u, { cores: 0.5 }, null)).toBe(false);
  expect(worthSweeping(u, { cores: 0.25 }, null)).toBe(false);
  expect(prunedText(u, { label: 'b', replicas: 1, cores: 0.5 }, null)).toBe(
    "not swept: 1 replica held 60/s in its screen and broke at up to 66/s (so at most 82.5/s, with 25% for a screen's noise): 2 replica(s) at least (0.5 cores), as replicas scale at best linearly, which is 0.5 cores, no less than b x1 measured to hold the rate (0.5 cores)",
  );
});

test("a unit's sweep: the bound's count and the one above, from 3/4 of what they would hold linearly, within the machine", () => {
  const [u] = orderByBound([unit('a', 25, 60, 66)], o);
  expect(sweepCounts(u, o)).toEqual({ counts: [2, 3], start: 90 });
  const [tight] = orderByBound([unit('a', 50, 40, 70)], { ...o, cores: 2 }); // 2 at most
  expect(sweepCounts(tight, { ...o, cores: 2 }).counts).toEqual([2]);
  const [least] = orderByBound([unit('a', 25, 20, null, { atLeast: 'the generator' })], o);
  expect(sweepCounts(least, o)).toEqual({ counts: [1, 2], start: null });
});
