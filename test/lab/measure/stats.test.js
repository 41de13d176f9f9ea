'use strict';

const summarize = require('../../../lab/measure/stats');

test('percentiles by nearest rank of the samples themselves, never above the max', () => {
  const samples = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted
  expect(summarize(samples)).toEqual({ count: 100, min: 1, mean: 50.5, p50: 50, p95: 95, p99: 99, max: 100 });
  const few = summarize([3, 1, 2]);
  expect(few).toMatchObject({ p50: 2, p95: 3, p99: 3, max: 3 });
  for (const k of ['p50', 'p95', 'p99']) expect(few[k]).toBeLessThanOrEqual(few.max);
});

test('no samples: nothing to say, not zeros', () => {
  expect(summarize([])).toEqual({ count: 0, min: null, mean: null, p50: null, p95: null, p99: null, max: null });
});

test('numbers sorted as numbers (10 after 9)', () => {
  expect(summarize([10, 9, 100]).min).toBe(9);
});
