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

test('a first level that breaks: halved until one holds, then bisected; to the floor, said as such', async () => {
  const { measure, asked } = fake(10);
  const r = await searchCapacity(measure, { start: 50, precision: 0.05 });
  expect(asked.slice(0, 4)).toEqual([50, 25, 12.5, 6.3]);
  expect(r.stop.kind).toBe('bracketed');
  expect(r.held.rate).toBeLessThanOrEqual(10);
  expect(r.broke.rate).toBeGreaterThan(10);
  expect((r.broke.rate - r.held.rate) / r.held.rate).toBeLessThanOrEqual(0.05);
  // Nothing holds down to the floor: the first level is named, and the floor.
  const none = await searchCapacity(fake(0.1).measure, { start: 50, floor: 5 });
  expect(none.stop).toMatchObject({ kind: 'first-level', floor: 5, level: { rate: 50 } });
  expect(none.levels.map((l) => l.rate)).toEqual([50, 25, 12.5, 6.3]);
  expect((await searchCapacity(fake(1e9).measure, { start: 50, maxRate: 400 })).stop.kind).toBe('max-rate');
});

// A service whose state grows under load: after the overload at 125/s, 100/s no longer holds.
test('after a break, the service must recover; the last level that held is measured again first', async () => {
  const seen = [];
  let overloaded = false;
  const measure = async (rate) => {
    seen.push(rate);
    if (rate > 110) overloaded = true;
    return { rate, ok: rate <= 110 && !overloaded, generatorBound: null, thresholds: [] };
  };
  const recover = async () => ({ ok: true, text: 'recovered' });
  const r = await searchCapacity(measure, { start: 50, factor: 2, recover });
  // The held level measured again, twice (once broken may be noise), after a recovery each.
  expect(seen).toEqual([50, 100, 200, 100, 100]);
  expect(r.stop).toMatchObject({ kind: 'hysteresis', first: { rate: 100 }, overload: { rate: 200 } });
  expect(r.recoveries).toHaveLength(2);

  // Broken once, held the second time: noise, and the search goes on bisecting.
  let stall = 1;
  const noisy = async (rate) => {
    seen.length = 0;
    const ok = rate <= 110 && !(rate === 100 && stall-- === 0);
    return { rate, ok, generatorBound: null, thresholds: [] };
  };
  const asked = [];
  const n = await searchCapacity(
    async (rate) => {
      asked.push(rate);
      return noisy(rate);
    },
    { start: 50, recover, precision: 0.05 },
  );
  expect(asked.slice(0, 5)).toEqual([50, 100, 200, 100, 100]);
  expect(n.stop.kind).toBe('bracketed');
  expect(n.held.rate).toBeGreaterThanOrEqual(100);

  // A service that does not answer as before within the wait: the search stops on it.
  const stuck = await searchCapacity(fake(300).measure, {
    start: 50,
    recover: async () => ({ ok: false, text: 'not recovered after 60 s' }),
  });
  expect(stuck.stop).toMatchObject({ kind: 'no-recovery', level: { rate: 400 } });
  expect(stuck.levels.map((l) => l.rate)).toEqual([50, 100, 200, 400]);

  // A steady service: recovered every time, bisected as before, the held level measured twice.
  const steady = fake(700);
  const ok = await searchCapacity(steady.measure, { start: 50, recover: async () => ({ ok: true }) });
  expect(ok.stop.kind).toBe('bracketed');
  expect(steady.asked.slice(0, 6)).toEqual([50, 100, 200, 400, 800, 400]);
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
    /^no verified rate: 600\/s held in the search, but no verification held, 3 tries down to 541\.5\/s \(the last: 1 of 3 runs held on their own/,
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

test('a service that changed under the search: no capacity, the sentence that says why, and the way on', () => {
  const lvl = (rate, ok) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 5, p99: ok ? 50 : 9900, max: 10000 },
    errorsPct: ok ? 0 : 15,
    thresholds: [{ text: 'p99<500', ok, value: ok ? 50 : 9900, unit: 'ms' }],
  });
  const p = { slos: [{ text: 'p99<500', metric: 'p99', limit: 500 }], maxRate: 20000 };
  const again = lvl(100, false);
  const hyst = verdictOf(
    'single',
    { label: 'single' },
    {
      held: lvl(100, true),
      broke: lvl(125, false),
      levels: [1, 2, 3],
      stop: { kind: 'hysteresis', level: again, first: lvl(100, true), overload: lvl(125, false) },
    },
    null,
    p,
  );
  expect(hyst).toMatchObject({ maxRate: null, bound: 'hysteresis' });
  expect(hyst.text).toMatch(
    /^100\/s held at first but broke after the overload at 125\/s \(p99<500 \(measured 9900ms\)\): the service did not recover \(its state grew, or its queue did not drain\); --fresh-per-level redeploys it/,
  );
  const stuck = verdictOf(
    'replicated',
    { label: 'replicated' },
    {
      held: lvl(100, true),
      broke: lvl(125, false),
      levels: [],
      stop: {
        kind: 'no-recovery',
        level: lvl(125, false),
        recovery: { text: 'not recovered after 60 s (4 probe(s))' },
      },
    },
    null,
    p,
  );
  expect(stuck).toMatchObject({ maxRate: null, bound: 'no-recovery' });
  expect(stuck.text).toMatch(
    /^after the overload at 125\/s the service did not answer as it did before the search \(not recovered after 60 s/,
  );
});

test('every deployment broke near one rate with the cores busy: the machine is the limit, said, nothing ranked', () => {
  const { machineLimit } = require('../../../lab/capacity/verdict');
  const row = (deployment, rate, share) => ({
    deployment,
    maxRate: null,
    broke: { rate, machineShare: share },
    held: { rate: rate * 0.95, machineShare: share },
  });
  const m = machineLimit([row('single', 1000, 0.91), row('replicated', 1062, 0.87)], 2);
  expect(m.text).toMatch(
    /^this machine's 2 cores set the limit at about 1062\/s for every deployment \(single broke at 1000\/s, its cores 91% busy; replicated broke at 1062\/s, its cores 87% busy\): the deployments cannot be told apart on this machine; run the service on more cores, cap the replicas/,
  );
  // Apart by more than 20%, or cores not busy, or one deployment only: not the machine.
  expect(machineLimit([row('single', 300, 0.9), row('replicated', 1000, 0.9)], 2)).toBeNull();
  expect(machineLimit([row('single', 1000, 0.6), row('replicated', 1000, 0.9)], 2)).toBeNull();
  expect(machineLimit([row('single', 1000, 0.9)], 2)).toBeNull();
});

test("a script's capacity is in scenarios a second, its requests a second beside it; the try that verified it", () => {
  const lvl = (rate) => ({
    rate,
    ok: true,
    answeredPerS: rate * 3,
    latencyMs: { p50: 2, p99: 20, max: 30 },
    errorsPct: 0,
    machineShare: 0.4,
    holdS: 6,
    thresholds: [],
    cost: { cpuMsPerRequest: 1, tiers: {}, cpuCores: 0.3, memoryMiB: 50 },
  });
  const p = { slos: [], maxRate: 20000, model: { flows: [] } };
  const v = verdictOf(
    'single',
    { label: 'single' },
    { held: lvl(100), broke: null, levels: [], stop: { kind: 'bracketed' } },
    [90, 85].map((rate, i) => ({ rate, ok: i === 1, runs: [lvl(rate)] })),
    p,
  );
  expect(v).toMatchObject({ maxRate: 85, unit: 'scenarios', requestsPerS: 255 });
  expect(v.text).toBe('85 scenarios/s (255 requests/s answered), verified at the 2nd try');
});
