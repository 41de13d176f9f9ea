'use strict';

const { t95 } = require('../../../lab/analysis/student-t');

// Student's t, 97.5% quantile: the published table's values (e.g. NIST/SEMATECH e-Handbook of
// Statistical Methods, 1.3.6.7.2), to three places.
test.each([
  [1, 12.706],
  [2, 4.303],
  [5, 2.571],
  [10, 2.228],
  [20, 2.086],
  [30, 2.042],
  [100, 1.984],
])('t95(%d) is %d', (dof, t) => {
  expect(t95(dof)).toBeCloseTo(t, 3);
});

test('fractional degrees of freedom (Welch) fall between their neighbours', () => {
  expect(t95(7.5)).toBeLessThan(t95(7));
  expect(t95(7.5)).toBeGreaterThan(t95(8));
});

test('many degrees of freedom: the normal quantile; none: no bound', () => {
  expect(t95(1e9)).toBeCloseTo(1.96, 3);
  expect(t95(Infinity)).toBeCloseTo(1.96, 3);
  expect(t95(0)).toBe(Infinity);
  expect(t95(NaN)).toBe(Infinity);
});
