'use strict';

const { rankCandidates, candidateOf, checkOrder } = require('../../../lab/choose/candidates');
const { candidateText } = require('../../../lab/report/choice-text');
const { usl } = require('../../../lab/capacity/usl');

// A shape's sweep whose capacities follow the law exactly (a little noise so the fit has a
// residual), as capacity --replicas would measure them.
function sweep(
  shape,
  law,
  { counts = [1, 2, 3, 4], capPct = 25, workers = 1, noise = [0.01, -0.01, 0.005, -0.005] } = {},
) {
  return {
    shape,
    workers,
    balancer: 'nginx',
    capPct,
    points: counts.map((n, i) => ({
      replicas: n,
      maxRate: Math.round(usl(n, law) * (1 + (noise[i] ?? 0)) * 10) / 10,
      memoryMiB: 60 + n,
    })),
  };
}

test('the fewest replicas predicted to hold the rate with its headroom; ranked by cores', () => {
  const one = sweep('replicated', { lambda: 30, sigma: 0.05, kappa: 0 });
  const two = sweep('multi-replicated', { lambda: 25, sigma: 0.05, kappa: 0 }, { workers: 2 });
  const r = rankCandidates([two, one], { rate: 60, headroom: 0.3 });
  // 78/s wanted: 3 replicas of 30/s hold about 81.8/s; 4 of 25/s about 87/s.
  expect(r.choice).toMatchObject({ shape: 'replicated', replicas: 3, cores: 0.75, rank: 1 });
  expect(r.candidates[1]).toMatchObject({ shape: 'multi-replicated', replicas: 4, cores: 1, rank: 2 });
  // Measured at 3 (a count of the sweep): its measurement is what it holds, the curve beside.
  expect(r.choice.from).toBe('measured');
  expect(r.choice.holds).toBe(r.choice.measured.rate);
  expect(r.choice.prediction.rate).toBeCloseTo(81.8, 0);
  expect(r.choice.memoryMiB).toBe(63);
  expect(r.none).toBeNull();
  expect(candidateText(r.choice)).toMatch(/^replicated x3: 0.75 cores \(3 x 0.25\), measured to hold/);
});

test('a count past the ones measured comes from the curve, with its interval; sure when its low end holds the rate', () => {
  const c = candidateOf(sweep('replicated', { lambda: 20, sigma: 0.02, kappa: 0 }), {
    rate: 100,
    headroom: 0.3,
    maxReplicas: 32,
  });
  // 130/s wanted: 20N / (1 + 0.02(N-1)) >= 130 at N = 8.
  expect(c.replicas).toBe(8);
  expect(c.from).toBe('predicted');
  expect(c.prediction.low).toBeLessThan(c.prediction.rate);
  expect(c.prediction.high).toBeGreaterThan(c.prediction.rate);
  expect(c.holds).toBe(c.prediction.rate);
  // Four counts leave the fit one degree of freedom (t = 12.7): the interval at 8 replicas
  // reaches down to 0, so it is not sure.
  expect(c.prediction.low).toBeLessThan(100);
  expect(c.sure).toBe(false);
  expect(candidateText(c)).toMatch(/predicted to hold [\d.]+\/s \(95%: [\d.]+ to [\d.]+\)/);
  // Six counts close to the law: the interval's low end above 100/s, sure; the same counts
  // with 5% noise: the low end under it, not sure.
  const six = [1, 2, 3, 4, 5, 6];
  const close = candidateOf(
    sweep(
      'replicated',
      { lambda: 20, sigma: 0.02, kappa: 0 },
      { counts: six, noise: [0.01, -0.01, 0.005, -0.005, 0.003, -0.003] },
    ),
    { rate: 100, headroom: 0.3, maxReplicas: 32 },
  );
  expect(close).toMatchObject({ replicas: 8, from: 'predicted', sure: true });
  expect(close.prediction.low).toBeGreaterThanOrEqual(100);
  const noisy = candidateOf(
    sweep(
      'replicated',
      { lambda: 20, sigma: 0.02, kappa: 0 },
      { counts: six, noise: [0.05, -0.05, 0.04, -0.04, 0.03, -0.03] },
    ),
    { rate: 100, headroom: 0.3, maxReplicas: 32 },
  );
  expect(noisy).toMatchObject({ replicas: 8, from: 'predicted', sure: false });
  expect(noisy.prediction.low).toBeLessThan(100);
});

test('a target beyond the peak is refused with where the peak is; no choice, and why', () => {
  const law = { lambda: 30, sigma: 0.1, kappa: 0.05 };
  const r = rankCandidates([sweep('replicated', law, { counts: [1, 2, 3, 4, 5] })], { rate: 100, headroom: 0.3 });
  expect(r.choice).toBeNull();
  const [c] = r.candidates;
  expect(c.replicas).toBeNull();
  expect(c.refused).toMatch(
    /beyond this shape's peak: the curve peaks at 4\.\d replicas, 6\d(\.\d)?\/s.*more replicas will not get there/,
  );
  expect(r.none).toMatch(/^no deployment is predicted to hold 100\/s with 30% headroom: replicated: 130\/s is beyond/);
});

test('past the most replicas allowed, and with no fit, each says so', () => {
  const far = candidateOf(sweep('replicated', { lambda: 10, sigma: 0, kappa: 0 }, { noise: [] }), {
    rate: 1000,
    headroom: 0.3,
    maxReplicas: 32,
  });
  expect(far.refused).toMatch(
    /^1300\/s needs more than 32 replicas of 25% of a core \(32 are predicted to hold 320\/s\)/,
  );
  const few = candidateOf(sweep('replicated', { lambda: 10, sigma: 0, kappa: 0 }, { counts: [1, 2] }), {
    rate: 100,
    headroom: 0.3,
    maxReplicas: 32,
  });
  expect(few.refused).toMatch(/no fit \(2 good point\(s\) of the 4 the law needs\).*the most: 19.8\/s at 2 replica/);
  // With no fit, a count measured to hold it is still a measurement.
  const held = candidateOf(sweep('replicated', { lambda: 100, sigma: 0, kappa: 0 }, { counts: [1, 2] }), {
    rate: 100,
    headroom: 0.3,
    maxReplicas: 32,
  });
  expect(held).toMatchObject({ replicas: 2, from: 'measured', prediction: null, sure: true });
});

test('points left out of the fit are not in it, but what they held is a measurement (at least)', () => {
  const s = sweep('replicated', { lambda: 30, sigma: 0, kappa: 0 }, { counts: [1, 2, 3, 4, 5] });
  s.points[4] = { ...s.points[4], maxRate: 500, leftOut: 'the generator was the limit' };
  const c = candidateOf(s, { rate: 140, headroom: 0, maxReplicas: 32 });
  // The fit is the four others' (30/s a replica), not pulled up by 500/s at 5.
  expect(c.fit.lambda).toBeCloseTo(30, 0);
  // 5 replicas held at least 500/s: measured to hold 140/s.
  expect(c).toMatchObject({ replicas: 5, from: 'measured', measured: { rate: 500 } });
  expect(c.prediction.rate).toBeCloseTo(150, -1);
  const drift = { ...s, notRanked: 'not ranked: the service changed under the search' };
  expect(candidateOf(drift, { rate: 10, headroom: 0.3, maxReplicas: 32 })).toMatchObject({
    replicas: null,
    refused: drift.notRanked,
  });
});

test('checked in order of cores: each candidate, then one replica more of it', () => {
  const one = sweep('replicated', { lambda: 30, sigma: 0.05, kappa: 0 });
  const two = sweep('multi-replicated', { lambda: 25, sigma: 0.05, kappa: 0 }, { workers: 2 });
  const r = rankCandidates([one, two], { rate: 60, headroom: 0.3 });
  const order = checkOrder(r.candidates).map((c) => `${c.shape} x${c.replicas}${c.stepUp ? ' (up)' : ''}`);
  // replicated x3 (0.75 cores); then x4 of each at 1 core, the candidate before the step up.
  expect(order).toEqual(['replicated x3', 'multi-replicated x4', 'replicated x4 (up)', 'multi-replicated x5 (up)']);
  const up = checkOrder(r.candidates)[2];
  expect(up).toMatchObject({ from: 'measured', cores: 1 });
  expect(up.holds).toBe(up.measured.rate);
});

test('with no fit, one replica more is a measurement when its count held at least its rate; its line says so either way', () => {
  const s = {
    shape: 'replicated',
    workers: 1,
    balancer: 'nginx',
    capPct: 50,
    points: [
      { replicas: 1, maxRate: 20, leftOut: 'nothing broke up to --max-rate' },
      { replicas: 2, maxRate: 20, leftOut: 'nothing broke up to --max-rate' },
    ],
  };
  const r = rankCandidates([s], { rate: 10, headroom: 0.3 });
  expect(r.choice).toMatchObject({
    replicas: 1,
    from: 'measured',
    measured: { rate: 20, atLeast: 'nothing broke up to --max-rate' },
  });
  const [first, up] = checkOrder(r.candidates);
  expect(first.replicas).toBe(1);
  expect(up).toMatchObject({ replicas: 2, from: 'measured', stepUp: true, measured: { rate: 20 } });
  expect(candidateText(up)).toBe('replicated x2: 1 cores (2 x 0.5), measured to hold at least 20/s');
  // A count past the ones measured, with no fit: said as what it is.
  const past = checkOrder(r.candidates.map((c) => ({ ...c, replicas: 2, cores: 1 })))[1];
  expect(past).toMatchObject({ replicas: 3, from: 'predicted', prediction: null });
  expect(candidateText(past)).toBe(
    'replicated x3: 1.5 cores (3 x 0.5), one replica more than a count expected to hold 20/s',
  );
});

test('equal cores: the one whose replicas take less memory first, then the one that holds more', () => {
  const law = { lambda: 30, sigma: 0.05, kappa: 0 };
  const heavy = sweep('replicated', law);
  const light = sweep('multi-replicated', law, { workers: 2 });
  for (const p of heavy.points) p.memoryMiB = 200;
  for (const p of light.points) p.memoryMiB = 90;
  const r = rankCandidates([heavy, light], { rate: 60, headroom: 0.3 });
  expect(r.candidates.map((c) => [c.shape, c.cores, c.memoryMiB])).toEqual([
    ['multi-replicated', 0.75, 90],
    ['replicated', 0.75, 200],
  ]);
  // The same memory: the one measured to hold more first.
  const more = sweep('multi-replicated', { ...law, lambda: 32 }, { workers: 2 });
  const r2 = rankCandidates([sweep('replicated', law), more], { rate: 60, headroom: 0.3 });
  expect(r2.candidates[0].holds).toBeGreaterThan(r2.candidates[1].holds);
  expect(r2.candidates[0].shape).toBe('multi-replicated');
});

// A sweep of replicas of a quarter core with these points, as measured (not from a law).
const measuredSweep = (points) => ({ shape: 'replicated', workers: 1, balancer: 'nginx', capPct: 25, points });

// A measurement is never overruled by a prediction (issue 82): 3 replicas measured at 125/s do
// not hold 130/s, whatever the curve says of them.
test('a count measured under the rate wanted is never chosen on a prediction: what was measured wins', () => {
  const s = measuredSweep([
    { replicas: 1, maxRate: 50 },
    { replicas: 2, maxRate: 95 },
    { replicas: 3, maxRate: 125 },
    { replicas: 5, maxRate: 190 },
  ]);
  const c = candidateOf(s, { rate: 130, headroom: 0, maxReplicas: 32 });
  expect(c.replicas).not.toBe(3);
  expect(c.replicas).toBeGreaterThanOrEqual(4);
  if (c.from === 'predicted') expect(c.prediction.rate).toBeGreaterThanOrEqual(130);
  // With 4 measured at 190/s: the measurement, 4.
  const four = candidateOf(
    { ...s, points: [...s.points.slice(0, 3), { replicas: 4, maxRate: 190 }] },
    { rate: 130, headroom: 0, maxReplicas: 32 },
  );
  expect(four).toMatchObject({ replicas: 4, from: 'measured' });
});

// A count whose search stopped at a break under the rate wanted (capacity --stop-below, the
// sweeps after a screen) is measured short as well: the curve of the others says 1 replica
// holds about 170/s, but it broke at 126.6/s, so 2 (measured) are chosen, not 1 (predicted).
test('a count stopped below the rate wanted is never chosen on a prediction either, and said when none holds', () => {
  const s = measuredSweep([
    { replicas: 1, maxRate: null, below: 126.6, leftOut: 'it broke at 126.6/s, at or below 130/s (--stop-below)' },
    { replicas: 2, maxRate: 300 },
    { replicas: 3, maxRate: 430 },
    { replicas: 4, maxRate: 545 },
    { replicas: 5, maxRate: 650 },
  ]);
  const c = candidateOf(s, { rate: 100, headroom: 0.3, maxReplicas: 32 });
  expect(c.fit).not.toBeNull();
  expect(c.curve[0].rate).toBeGreaterThan(130);
  expect(c).toMatchObject({ replicas: 2, from: 'measured', measured: { rate: 300 } });
  // Only it and a count below the rate: no fit, none holds, and the break named.
  const none = candidateOf(
    { ...s, points: [s.points[0], { replicas: 2, maxRate: 120 }] },
    { rate: 100, headroom: 0.3, maxReplicas: 32 },
  );
  expect(none.replicas).toBeNull();
  expect(none.refused).toMatch(/\(below it: 1 broke at 126\.6\/s\)/);
});

// choose --node (issue 86): the Node version a dimension like the shape: the same shape on two
// versions is two candidates, each named with its Node, ranked by cores; and the check order
// keeps each step up on its own version.
test('the same shape on two Node versions: two candidates, each named with its Node, the cheaper first', () => {
  const on22 = { ...sweep('replicated', { lambda: 30, sigma: 0.05, kappa: 0 }), node: '22.23.5' };
  const on24 = { ...sweep('replicated', { lambda: 20, sigma: 0.05, kappa: 0 }), node: '24.21.0' };
  const r = rankCandidates([on24, on22], { rate: 60, headroom: 0.3 });
  expect(r.candidates.map((c) => [c.node, c.replicas, c.rank])).toEqual([
    ['22.23.5', 3, 1],
    ['24.21.0', 5, 2],
  ]);
  expect(r.choice.label).toBe('replicated on Node 22.23.5');
  expect(candidateText(r.choice)).toMatch(/^replicated on Node 22\.23\.5 x3: /);
  const order = checkOrder(r.candidates);
  expect(order.map((c) => `${c.node} x${c.replicas}`)).toEqual([
    '22.23.5 x3',
    '22.23.5 x4',
    '24.21.0 x5',
    '24.21.0 x6',
  ]);
  // Without --node, no Node in the label.
  expect(
    candidateOf(sweep('replicated', { lambda: 30, sigma: 0.05, kappa: 0 }), {
      rate: 60,
      headroom: 0.3,
      maxReplicas: 32,
    }).label,
  ).toBe('replicated');
});

// choose --sizes (issue 82): how big a replica should be. The same shape swept at two sizes is
// two candidates, each named with its size and costed in cores by it: six replicas of a
// quarter core (1.5 cores) before two of a whole core (2 cores) when both hold the rate.
test('the same shape at two replica sizes: two candidates, each with its size, ranked by the cores they take', () => {
  const quarter = { ...sweep('replicated', { lambda: 20, sigma: 0.02, kappa: 0 }, { capPct: 25 }), sized: true };
  const whole = {
    ...sweep('replicated', { lambda: 70, sigma: 0.02, kappa: 0 }, { capPct: 100, counts: [1, 2, 3, 4] }),
    sized: true,
  };
  const r = rankCandidates([whole, quarter], { rate: 80, headroom: 0.3 });
  // 104/s wanted: a quarter core holds about 20/s, so 6 of them (1.5 cores); a whole core 70/s,
  // so 2 of them (2 cores).
  expect(r.candidates.map((c) => [c.label, c.replicas, c.cores, c.rank])).toEqual([
    ['replicated of 25% a replica', 6, 1.5, 1],
    ['replicated of 100% a replica', 2, 2, 2],
  ]);
  expect(candidateText(r.choice)).toMatch(/^replicated of 25% a replica x6: 1.5 cores \(6 x 0.25\)/);
});
