'use strict';

const { countStart, SHARE, FACTOR } = require('../../../lab/capacity/sweep-start');
const { searchCapacity } = require('../../../lab/capacity/search');

const P = { floor: 1, maxRate: 20000 };

test("a count's search starts under the linear rate of the largest count measured below it", () => {
  // Nothing measured below: --start, as any search.
  expect(countStart([], 1, P)).toBeNull();
  const r = (replicas, maxRate, more = {}) => ({ replicas, maxRate, ...more });
  expect(countStart([r(1, 20)], 2, P)).toEqual({ start: 30, factor: FACTOR, from: { replicas: 1, maxRate: 20 } });
  // The largest count below, not the first: 3 replicas at 57/s for 4 -> 76/s x 0.75.
  expect(countStart([r(1, 20), r(2, 40), r(3, 57)], 4, P).start).toBe(57);
  // "At least" and no rate are no measure to start from; a count above n is not below it.
  expect(countStart([r(1, 20), r(2, 90, { atLeast: true }), r(3, null)], 4, P).from).toEqual({
    replicas: 1,
    maxRate: 20,
  });
  expect(countStart([r(4, 80)], 2, P)).toBeNull();
  // Within the search's own bounds.
  expect(countStart([r(1, 1)], 2, { floor: 5, maxRate: 100 }).start).toBe(5);
  expect(countStart([r(1, 100)], 4, { floor: 1, maxRate: 200 }).start).toBe(200);
  expect(SHARE).toBeLessThan(1);
});

// The point of it: a 4-replica service of 80/s, from 4 x 0.75 x 20/s, is bracketed in fewer
// levels, and no level overloads it by twice its rate.
test('started there, the search brackets the knee in fewer levels and never asks twice the knee', async () => {
  const levelsOf = async (o) => {
    const asked = [];
    await searchCapacity(
      async (rate) => {
        asked.push(rate);
        return { rate, ok: rate <= 80, generatorBound: null };
      },
      { precision: 0.1, ...o },
    );
    return asked;
  };
  const fixed = await levelsOf({ start: 40 });
  const from = countStart([{ replicas: 1, maxRate: 20 }], 4, P);
  const started = await levelsOf({ start: from.start, factor: from.factor });
  expect(started[0]).toBe(60);
  expect(started.length).toBeLessThan(fixed.length);
  expect(Math.max(...started)).toBeLessThan(2 * 80);
  expect(Math.max(...fixed)).toBe(160);
});

// A count stopped below --stop-below has no capacity, but its search held a rate: where the
// next count starts is aimed from it, said as unverified (a start is never a figure).
test('a count stopped below --stop-below aims the next by the rate its search held, said unverified', () => {
  const stopped = { replicas: 1, maxRate: null, bound: 'stop-below', below: 126.6, held: { rate: 115.8 } };
  expect(countStart([stopped], 2, P)).toEqual({
    start: 173.7,
    factor: FACTOR,
    from: { replicas: 1, maxRate: 115.8, unverified: true },
  });
  // Nothing held before the break, or any other row without a rate: no aim.
  expect(countStart([{ ...stopped, held: undefined }], 2, P)).toBeNull();
  expect(countStart([{ replicas: 1, maxRate: null, bound: 'unverified', held: { rate: 100 } }], 2, P)).toBeNull();
});
