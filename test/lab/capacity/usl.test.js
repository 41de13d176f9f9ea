'use strict';

const { usl, fitUsl, predict, need, t95 } = require('../../../lab/capacity/usl');

// The R package usl's own test of its coefficients (tests/coef.R): six measurements that are
// the law with σ = κ = 0.02 and λ = 1, to four places.
test("the usl package's published example: sigma 0.02, kappa 0.02", () => {
  const load = [1, 2, 4, 6, 8, 10];
  const tput = [1, 1.8868, 3.0769, 3.5294, 3.5398, 3.3557];
  const fit = fitUsl(load.map((n, i) => ({ replicas: n, rate: tput[i] })));
  expect(fit.sigma).toBeCloseTo(0.02, 3);
  expect(fit.kappa).toBeCloseTo(0.02, 3);
  expect(fit.lambda).toBeCloseTo(1, 3);
  // the peak, sqrt((1 - 0.02) / 0.02) = 7
  expect(fit.peak.replicas).toBeCloseTo(7, 1);
});

// Off the grid the fit starts from (σ in hundredths, κ in tenths of a decade): the law's own
// values, recovered to five places by the refinement (ml-levenberg-marquardt), not to the
// grid's step.
test('exact measurements off the starting grid: the parameters to five places', () => {
  const truth = { sigma: 0.0237, kappa: 0.000313, lambda: 87.5 };
  const fit = fitUsl([1, 2, 3, 4, 6, 8, 12].map((n) => ({ replicas: n, rate: usl(n, truth) })));
  expect(fit.sigma).toBeCloseTo(truth.sigma, 5);
  expect(fit.kappa).toBeCloseTo(truth.kappa, 6);
  expect(fit.lambda).toBeCloseTo(truth.lambda, 3);
});

// A seeded generator, so the noise is the same on every run.
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}
const gauss = (r) => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());

test.each([
  { sigma: 0.05, kappa: 0.002, lambda: 120 },
  { sigma: 0.3, kappa: 0, lambda: 40 },
  { sigma: 0.02, kappa: 0.03, lambda: 500 },
])(
  'a synthetic sweep with 2%% noise: sigma $sigma, kappa $kappa, lambda $lambda recovered within their uncertainty',
  (truth) => {
    const r = rng(42);
    const points = [1, 2, 3, 4, 5, 6, 8].map((n) => ({
      replicas: n,
      rate: usl(n, truth) * (1 + 0.02 * gauss(r)),
    }));
    const fit = fitUsl(points);
    expect(fit.dof).toBe(4);
    for (const k of ['sigma', 'kappa', 'lambda']) {
      // within three standard errors (and a small floor for a parameter at its bound)
      expect(Math.abs(fit[k] - truth[k])).toBeLessThanOrEqual(3 * fit.se[k] + (k === 'lambda' ? 0 : 1e-3));
    }
    // the next count's prediction holds the truth in its interval
    const p = predict(fit, 10);
    expect(p.low).toBeLessThanOrEqual(usl(10, truth));
    expect(p.high).toBeGreaterThanOrEqual(usl(10, truth));
    expect(p.low).toBeLessThan(p.rate);
  },
);

test('four points leave one degree of freedom: a wide interval, honestly', () => {
  const truth = { sigma: 0.1, kappa: 0.01, lambda: 100 };
  const fit = fitUsl([1, 2, 3, 4].map((n) => ({ replicas: n, rate: usl(n, truth) * (n === 3 ? 1.03 : 1) })));
  expect(fit.dof).toBe(1);
  const p = predict(fit, 6);
  expect(p.high - p.low).toBeGreaterThan(0);
  // three points: no degree of freedom, no interval
  const three = fitUsl([1, 2, 3].map((n) => ({ replicas: n, rate: usl(n, truth) })));
  expect(predict(three, 6)).toMatchObject({ low: null, high: null });
  expect(() =>
    fitUsl([
      { replicas: 1, rate: 1 },
      { replicas: 1, rate: 2 },
      { replicas: 2, rate: 3 },
    ]),
  ).toThrow(/at least 3 distinct/);
});

test("a prediction's interval is for a new measurement: never narrower than the residual noise alone", () => {
  // Seven counts with 2% noise: at a count inside them the parameters are known well, and the
  // interval is mostly the noise a new measurement has (t x the residual standard error); an
  // interval of the curve alone (the parameters' uncertainty only) is narrower than that.
  const truth = { sigma: 0.05, kappa: 0.002, lambda: 120 };
  const r = rng(7);
  const fit = fitUsl([1, 2, 3, 4, 5, 6, 8].map((n) => ({ replicas: n, rate: usl(n, truth) * (1 + 0.02 * gauss(r)) })));
  const p = predict(fit, 4);
  expect(p.low).toBeGreaterThan(0);
  const half = (p.high - p.low) / 2;
  expect(half).toBeGreaterThanOrEqual(t95(fit.dof) * fit.residualSe - 1e-9);
  expect(half).toBeLessThan(2 * t95(fit.dof) * fit.residualSe);
});

test('the fewest replicas for a rate, or none past the peak', () => {
  const fit = { sigma: 0.05, kappa: 0.01, lambda: 100, peak: { replicas: Math.sqrt(0.95 / 0.01) } };
  expect(need(fit, 100)).toBe(1);
  expect(need(fit, 250)).toBe(usl(3, fit) >= 250 ? 3 : 4);
  expect(usl(need(fit, 400), fit)).toBeGreaterThanOrEqual(400);
  // the peak, about 9.7 replicas, holds ~ 457/s: 600/s is beyond any count
  expect(need(fit, 600)).toBeNull();
  expect(t95(1)).toBeCloseTo(12.706);
  expect(t95(100)).toBeCloseTo(1.984, 3);
});
