'use strict';

const { searchCapacity } = require('../../../lab/capacity/search');
const { parseSlo, samplesFor } = require('../../../lab/capacity/slo');
const { verdictOf, perCore } = require('../../../lab/capacity/verdict');

// A deployment that holds the SLO up to `knee`/s, as a measure function would find it.
const fake = (knee, { generatorAt = Infinity } = {}) => {
  const asked = [];
  const measure = async (rate) => {
    asked.push(rate);
    return {
      rate,
      ok: rate <= knee,
      generatorBound: rate >= generatorAt ? 'it launched 80% of the asked rate' : null,
      thresholds: [],
    };
  };
  return { measure, asked };
};

test('steps double until the SLO breaks, then bisection brackets the knee within the precision', async () => {
  const { measure, asked } = fake(700);
  const r = await searchCapacity(measure, { start: 50, precision: 0.05 });
  expect(asked.slice(0, 5)).toEqual([50, 100, 200, 400, 800]);
  expect(r.held.rate).toBeLessThanOrEqual(700);
  expect(r.broke.rate).toBeGreaterThan(700);
  expect((r.broke.rate - r.held.rate) / r.held.rate).toBeLessThanOrEqual(0.05);
  expect(r.stop.kind).toBe('bracketed');
});

test('the generator bound ends the search: "at least" the last level that held', async () => {
  const { measure } = fake(10000, { generatorAt: 400 });
  const r = await searchCapacity(measure, { start: 50 });
  expect(r.held.rate).toBe(200);
  expect(r.broke).toBeNull();
  expect(r.stop.kind).toBe('generator');
});

test('a first level that breaks the SLO is said as such; no break up to the maximum is said too', async () => {
  expect((await searchCapacity(fake(10).measure, { start: 50 })).stop.kind).toBe('first-level');
  expect((await searchCapacity(fake(1e9).measure, { start: 50, maxRate: 400 })).stop.kind).toBe('max-rate');
});

test('SLOs: latency and errors, whole or by request; a rate is refused; samples for the strictest', () => {
  expect(parseSlo('p99{POST /api/cart}<300')).toMatchObject({ metric: 'p99', name: 'POST /api/cart', limit: 300 });
  expect(() => parseSlo('rps>100')).toThrow(/the rate is what capacity finds/);
  expect(() => parseSlo('p99>100')).toThrow(/an upper bound/);
  expect(() => parseSlo('p99 below 3')).toThrow(/expected like p99<200/);
  expect(samplesFor([parseSlo('p99<200'), parseSlo('errors<1%')])).toBe(2000);
  expect(samplesFor([parseSlo('p50<20')])).toBe(100);
});

test('the verdict: the verified rate, the run that broke, the cost; "at least" where the machine was the limit', () => {
  const level = (rate, ok, machineShare = 0.6) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 2, p99: ok ? 20 : 400, max: 500 },
    errorsPct: 0,
    machineShare,
    holdS: 6,
    generatorCpuPct: 30,
    thresholds: [{ text: 'p99<200', ok, value: ok ? 20 : 400, unit: 'ms' }],
    cost: { cpuMsPerRequest: 2, tiers: { replicas: 1.8, nginx: 0.2 }, cpuCores: 1.2, memoryMiB: 90 },
  });
  const p = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000 };
  const found = { held: level(600, true), broke: level(630, false), levels: [1, 2, 3], stop: { kind: 'bracketed' } };
  const v = verdictOf(
    'single',
    { label: 'single' },
    found,
    [{ rate: 600, ok: true, runs: [level(600, true), level(600, true)] }],
    p,
  );
  expect(v).toMatchObject({ maxRate: 600, atLeast: false, bound: 'deployment', text: '600/s', perCore: 500 });
  expect(v.verified).toMatchObject({ rate: 600, ok: true, held: 2, runs: 2 });
  expect(v.broke).toMatchObject({ rate: 630, p99: 400, failed: ['p99<200'] });
  const busy = verdictOf(
    'replicated',
    { label: 'replicated' },
    { ...found, held: level(900, true, 0.95) },
    [{ rate: 900, ok: true, runs: [level(900, true, 0.95)] }],
    p,
  );
  expect(busy.text).toMatch(/^at least 900\/s \(this machine was the limit: its cores were 95% busy/);
  expect(perCore([v, busy]).deployment).toBe('single');
  // A rate no verification held (1 of 3, then its steps down too) is not a capacity, and is
  // not the one that holds "the most per core".
  const shaky = verdictOf(
    'multi',
    { label: 'multi' },
    found,
    [600, 570, 541.5].map((rate) => ({
      rate,
      ok: false,
      runs: [level(rate, true), level(rate, false), level(rate, false)],
    })),
    p,
  );
  expect(shaky).toMatchObject({ maxRate: null, bound: 'unverified' });
  expect(shaky.text).toMatch(
    /^no verified rate: 600\/s held in the search, but 1 of 3 verification runs at 541\.5\/s held \(after 2 step\(s\) down\)/,
  );
  expect(perCore([shaky, busy]).deployment).toBe('replicated');
  const first = verdictOf(
    'x',
    { label: 'x' },
    { held: null, broke: level(50, false), levels: [1], stop: { kind: 'first-level' } },
    null,
    p,
  );
  expect(first.maxRate).toBeNull();
  expect(first.text).toMatch(/^the first level \(50\/s\) already breaks p99<200 \(measured 400ms\)/);
});

// /ping on single broke at 3,100/s with the generator 115 ms late at p99: not the deployment's.
test('a late generator at the rate that broke the SLO makes the answer "at least", named', () => {
  const lvl = (rate, ok, lag) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 1, p99: ok ? 45 : 236, max: 300 },
    errorsPct: 0,
    machineShare: 0.8,
    sendLagP99Ms: lag,
    holdS: 12,
    thresholds: [{ text: 'p99<200', ok, value: ok ? 45 : 236, unit: 'ms' }],
    cost: { cpuMsPerRequest: 0.5, tiers: {}, cpuCores: 0.8, memoryMiB: 60 },
  });
  const p = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000 };
  const found = (lag) => ({
    held: lvl(3000, true, 10),
    broke: lvl(3100, false, lag),
    levels: [],
    stop: { kind: 'bracketed' },
  });
  const late = verdictOf(
    'single',
    { label: 'single' },
    found(114.7),
    [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }],
    p,
  );
  expect(late.text).toMatch(/^at least 3000\/s \(the generator was late at 3100\/s \(p99 send lag 114\.7 ms/);
  const onTime = verdictOf(
    'single',
    { label: 'single' },
    found(3),
    [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }],
    p,
  );
  expect(onTime.text).toBe('3000/s');
  // Late, but far past the SLO: the lateness does not explain the break, the deployment's.
  const saturated = found(30);
  saturated.broke.latencyMs.p99 = 2402;
  saturated.broke.thresholds = [{ text: 'p99<200', metric: 'p99', limit: 200, ok: false, value: 2402, unit: 'ms' }];
  const deployments = verdictOf(
    'single',
    { label: 'single' },
    saturated,
    [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }],
    p,
  );
  expect(deployments.text).toBe('3000/s');
});
