'use strict';

const { fitMemory, capacityFor, SEED } = require('../../../lab/analysis/memory-fit');

const M = 2 ** 20;

describe('capacity from a memory fit', () => {
  test('synthetic points on a line give back its base and slope, and the connections a limit holds', () => {
    const base = 40 * M;
    const per = 20 * 1024;
    const points = [1000, 2000, 5000, 10000].map((n) => ({ n, bytes: base + per * n }));
    const fit = fitMemory(points);
    expect(fit.baseBytes).toBeCloseTo(base, 0);
    expect(fit.perConnectionBytes).toBeCloseTo(per, 6);
    expect(fit.r2).toBeCloseTo(1, 9);
    expect(capacityFor(500 * M, fit)).toBe(Math.floor((500 * M - base) / per));
  });

  test('noise lowers r2; memory that does not grow gives no capacity; too few points are refused', () => {
    const noisy = fitMemory([
      { n: 1000, bytes: 60 * M },
      { n: 2000, bytes: 90 * M },
      { n: 5000, bytes: 130 * M },
      { n: 10000, bytes: 260 * M },
    ]);
    expect(noisy.r2).toBeGreaterThan(0.9);
    expect(noisy.r2).toBeLessThan(1);
    expect(capacityFor(500 * M, { baseBytes: 50 * M, perConnectionBytes: 0 })).toBe(null);
    expect(() => fitMemory([{ n: 1, bytes: 1 }])).toThrow(/two points/);
    expect(() =>
      fitMemory([
        { n: 1, bytes: 1 },
        { n: 1, bytes: 2 },
      ]),
    ).toThrow(/different/);
  });

  test("the seed's own napkin math: about 11.6k for 500 MB", () => {
    expect(SEED.estimate).toBe(11628);
  });
});
