'use strict';

const { scalingText } = require('../../../lab/report/scaling-text');

const points = [
  { replicas: 1, maxRate: 30 },
  { replicas: 2, maxRate: 55 },
  { replicas: 3, maxRate: null, leftOut: 'no level held' },
];

test('a fit: each count, the law with its errors, the peak, the prediction against the measure, the need', () => {
  const text = scalingText({
    deployment: 'replicated',
    points,
    fit: { lambda: 31, sigma: 0.05, kappa: 0.01, dof: 1, se: { lambda: 2 }, peak: { replicas: 9.7, rate: 150 } },
    prediction: { replicas: 5, rate: 120, low: 100, high: 140 },
    measured: { replicas: 5, maxRate: 150 },
    errorPct: 25,
    withinInterval: false,
    need: { rate: 60, text: '3 replicas' },
  });
  expect(text.split('\n')).toEqual([
    'How replicated scales with replicas:',
    '   1 replica(s): 30/s',
    '   2 replica(s): 55/s',
    '   3 replica(s): none  (left out of the fit: no level held)',
    '  the Universal Scalability Law: one replica 31 ± 2/s, contention sigma 0.05, coherency kappa 0.01 (1 degree(s) of freedom)',
    '  the peak: 9.7 replicas, 150/s; past it, more replicas hold less',
    '  predicted for 5 replicas before measuring them: 120/s (95%: 100 to 140)',
    '  measured: 150/s, the prediction off by 25%, outside its interval',
    '  for 60/s: 3 replicas',
  ]);
});

test('no fit: why, and a measure with nothing to check', () => {
  const text = scalingText({
    deployment: 'replicated',
    points: points.slice(0, 2),
    fit: null,
    fitRefused: 'a fit needs 4 good points',
    measured: { replicas: 5, maxRate: null, leftOut: 'no level held' },
  });
  expect(text).toMatch(
    /no fit: a fit needs 4 good points\n {2}measured after the sweep, with no fit to predict it: 5 replicas, no rate \(no level held\)$/,
  );
});

test('no peak (kappa 0), and a prediction with no interval left', () => {
  const text = scalingText({
    deployment: 'multi-replicated',
    points,
    fit: { lambda: 31, sigma: 0.05, kappa: 0, dof: 0, peak: null },
    prediction: { replicas: 5, rate: 120, low: null, high: null },
  });
  expect(text).toMatch(/no peak \(kappa 0\): more replicas always hold more/);
  expect(text).toMatch(/predicted for 5 replicas before measuring them: 120\/s$/);
});
