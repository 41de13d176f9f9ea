'use strict';

const { scalingOf } = require('../../../lab/capacity/scaling');
const { scalingText } = require('../../../lab/report/scaling-text');
const { usl } = require('../../../lab/capacity/usl');

// Verdicts as the capacity search makes them (./verdict.js), at each replica count.
const truth = { sigma: 0.08, kappa: 0.01, lambda: 100 };
const v = (n, over = {}) => ({
  replicas: n,
  verdict: {
    maxRate: Math.round(usl(n, truth)),
    bound: 'deployment',
    atLeast: false,
    cpuMsPerRequestByTier: { nginx: 0.2, replicas: 3 },
    ...over,
  },
});

test('the points, the fit, the prediction checked at N, and the need', () => {
  const s = scalingOf([v(1), v(2), v(3), v(4), v(6, { maxRate: 300 })], {
    deployment: 'replicated',
    predictN: 6,
    needRate: 250,
  });
  expect(s.points.map((p) => p.replicas)).toEqual([1, 2, 3, 4]);
  expect(s.fit.sigma).toBeCloseTo(0.08, 1);
  expect(s.fit.peak.replicas).toBeGreaterThan(5);
  expect(s.prediction.replicas).toBe(6);
  expect(s.prediction.low).toBeLessThanOrEqual(s.prediction.rate);
  expect(s.measured).toEqual({ replicas: 6, maxRate: 300 });
  expect(s.errorPct).toBeCloseTo(((s.prediction.rate - 300) / 300) * 100, 0);
  expect(s.need).toMatchObject({ rate: 250, replicas: 4 });
  expect(s.curve[0]).toMatchObject({ replicas: 1 });
  const text = scalingText(s);
  expect(text).toMatch(/predicted for 6 replicas before measuring them: [\d.]+\/s \(95%: /);
  expect(text).toMatch(/measured: 300\/s, the prediction off by -?[\d.]+%/);
});

test('a point the generator, this machine or the entry limited is left out, and said so; under 4 good points no fit', () => {
  const s = scalingOf(
    [
      v(1),
      v(2),
      v(3, { bound: 'generator', atLeast: true }),
      v(4, { maxRate: 500, cpuMsPerRequestByTier: { nginx: 1.9 } }),
      v(5, { maxRate: null, bound: 'unverified' }),
    ],
    { deployment: 'replicated', entry: 'nginx' },
  );
  expect(s.points.map((p) => p.leftOut ?? 'ok')).toEqual([
    'ok',
    'ok',
    'the generator was the limit',
    'the nginx was the limit: 95% of a core at 500/s',
    'no verified rate',
  ]);
  expect(s.fit).toBeNull();
  expect(s.fitRefused).toMatch(/^2 good point\(s\): .* fewer than 4 points/);
  expect(scalingText(s)).toMatch(/no fit: 2 good point/);
});

// A sweep whose fit was refused still measures the --predict count: it is reported, with no
// prediction to check (it was once dropped from `scaling`).
test('without a fit the count measured after the sweep is still reported, unpredicted', () => {
  const s = scalingOf([v(1), v(2), v(3, { bound: 'generator', atLeast: true }), v(5, { maxRate: 260 })], {
    deployment: 'replicated',
    entry: 'nginx',
    predictN: 5,
  });
  expect(s.fit).toBeNull();
  expect(s.fitRefused).toMatch(/good point/);
  expect(s.points.map((p) => p.replicas)).toEqual([1, 2, 3]);
  expect(s.measured).toEqual({ replicas: 5, maxRate: 260 });
  expect(s.prediction).toBeUndefined();
  expect(s.errorPct).toBeUndefined();
  expect(scalingText(s)).toMatch(/measured after the sweep, with no fit to predict it: 5 replicas, 260\/s$/);
});

test('past the peak no replica count holds the rate', () => {
  const s = scalingOf([v(1), v(2), v(3), v(4), v(5)], { deployment: 'replicated', needRate: 5000 });
  expect(s.need.replicas).toBeNull();
  expect(s.need.text).toMatch(/^no replica count does: the curve peaks at [\d.]+ replicas/);
});
