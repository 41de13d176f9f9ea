'use strict';

const { searchCapacity } = require('../../../lab/capacity/search');
const { parseSlo, samplesFor } = require('../../../lab/capacity/slo');

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

// (--min-rate under 0.05/s: halving rounded back up to 0.1/s and measured it again until
// --max-levels, and the stop said max-levels, not the floor: issue 84.)
test('a floor under the rates the search asks: it stops at the lowest one, once, and says the floor', async () => {
  const r = await searchCapacity(fake(0.01).measure, { start: 0.8, floor: 0.01 });
  const rates = r.levels.map((l) => l.rate);
  expect(rates).toEqual([0.8, 0.4, 0.2, 0.1]);
  expect(r.stop).toMatchObject({ kind: 'first-level', floor: 0.01 });
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
  // (The floor itself is measured when the halving passes it: a service that holds 5/s is
  // found, where 6.3 was once the last level measured.)
  const none = await searchCapacity(fake(0.1).measure, { start: 50, floor: 5 });
  expect(none.stop).toMatchObject({ kind: 'first-level', floor: 5, level: { rate: 50 } });
  expect(none.levels.map((l) => l.rate)).toEqual([50, 25, 12.5, 6.3, 5]);
  const five = await searchCapacity(fake(5).measure, { start: 50, floor: 5 });
  expect(five.held.rate).toBe(5);
  expect(five.stop.kind).toBe('bracketed');
  // Likewise --max-rate: measured when a step would pass it, and then said.
  const top = fake(1e9);
  const max = await searchCapacity(top.measure, { start: 50, maxRate: 1000 });
  expect(top.asked).toEqual([50, 100, 200, 400, 800, 1000]);
  expect(max.stop.kind).toBe('max-rate');
  expect(max.held.rate).toBe(1000);
});

test('the bisection ends when the middle rounds to a rate it measured: 1.0/s held, 1.1/s broke', async () => {
  const slow = fake(1.05);
  const r = await searchCapacity(slow.measure, { start: 1, precision: 0.01, maxLevels: 1000 });
  expect(r.stop.kind).toBe('bracketed');
  expect(r.held.rate).toBe(1);
  expect(r.broke.rate).toBe(1.1);
  // 1, 2, then 1.5, 1.3, 1.2, 1.1 and no more (it once asked 1.1 forever).
  expect(slow.asked).toEqual([1, 2, 1.5, 1.3, 1.2, 1.1]);
  // Every rate asked is a tenth of a request a second: none twice in a bisection.
  const fine = fake(10.04);
  await searchCapacity(fine.measure, { start: 10, precision: 0.001, maxLevels: 1000 });
  expect(new Set(fine.asked).size).toBe(fine.asked.length);
});

test('the search is bounded: at most maxLevels levels, and none started past the time limit', async () => {
  // A service whose verdicts flip at random: whatever it answers, the search ends.
  let seed = 7;
  const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;
  for (let i = 0; i < 50; i++) {
    const levels = [];
    const r = await searchCapacity(
      async (rate) => {
        const l = { rate, ok: random() < 0.5, generatorBound: null, thresholds: [] };
        levels.push(l);
        return l;
      },
      {
        start: 1 + random() * 100,
        precision: random() * 0.1 + 0.001,
        maxLevels: 12,
        recover: async () => ({ ok: true }),
      },
    );
    expect(r.levels.length).toBeLessThanOrEqual(12);
    expect(levels.length).toBe(r.levels.length);
  }
  const capped = await searchCapacity(fake(700).measure, { start: 50, maxLevels: 3 });
  expect(capped.stop).toEqual({ kind: 'max-levels', maxLevels: 3 });
  expect(capped.levels).toHaveLength(3);
  // The time limit: asked before every level and every recovery, and said.
  const asked = [];
  const timed = await searchCapacity(fake(700).measure, {
    start: 50,
    recover: async () => ({ ok: true }),
    limit: ({ what, rate }) => {
      asked.push(`${what} ${rate}`);
      return asked.length > 6 ? 'no time left' : null;
    },
  });
  expect(timed.stop).toEqual({ kind: 'time-limit', text: 'no time left' });
  expect(asked).toEqual(['level 50', 'level 100', 'level 200', 'level 400', 'level 800', 'recovery 800', 'level 400']);
  expect(timed.levels.map((l) => l.rate)).toEqual([50, 100, 200, 400, 800]);
});

test('a level that could not run, or under which the service restarted, ends the search; with a fresh deployment per level a restart only breaks its level', async () => {
  const failing = await searchCapacity(
    async (rate) => (rate > 100 ? { rate, ok: false, failed: 'the child printed nothing' } : { rate, ok: true }),
    { start: 50 },
  );
  expect(failing.stop).toMatchObject({ kind: 'level-failed', level: { rate: 200 } });
  expect(failing.held.rate).toBe(100);
  const crash = (rate) => ({
    rate,
    ok: rate <= 100,
    restarts: rate > 150 ? [{ node: 'replica-1', restarts: 1, exitCodes: { 1: 1 } }] : undefined,
    thresholds: [],
  });
  const kept = await searchCapacity(async (rate) => crash(rate), { start: 50, recover: async () => ({ ok: true }) });
  expect(kept.stop).toMatchObject({ kind: 'restarted', level: { rate: 200 } });
  const fresh = await searchCapacity(async (rate) => crash(rate), { start: 50, precision: 0.1 });
  expect(fresh.stop.kind).toBe('bracketed');
  expect(fresh.held.rate).toBeGreaterThanOrEqual(90);
  // A restart seen while recovering, and a drift the recovery found, end it too, by name.
  const whileRecovering = await searchCapacity(fake(700).measure, {
    start: 50,
    recover: async () => ({ ok: false, restarts: [{ node: 'replica-2' }], text: 'restarted' }),
  });
  expect(whileRecovering.stop.kind).toBe('restarted');
  const drifting = await searchCapacity(fake(700).measure, {
    start: 50,
    recover: async () => ({ ok: false, drift: { text: 'slower' }, text: 'slower' }),
  });
  expect(drifting.stop).toMatchObject({ kind: 'drift', drift: { text: 'slower' } });
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

// Twice broken while other work kept the machine busy is no evidence the service changed: the
// bisection goes on from what held.
test('the level that held, broken twice again on a machine other work kept busy: no hysteresis claimed', async () => {
  let overloaded = false;
  const measure = async (rate) => {
    if (rate > 110) overloaded = true;
    return {
      rate,
      ok: rate <= 110 && !(overloaded && rate === 100),
      coresShare: 0.95,
      machineShare: 0.3,
      thresholds: [],
    };
  };
  const recover = async () => ({ ok: true });
  const busy = await searchCapacity(measure, {
    start: 50,
    recover,
    noisy: (_reference, ls) => ls.every((l) => l.coresShare - l.machineShare >= 0.25),
  });
  expect(busy.stop.kind).toBe('bracketed');
  overloaded = false;
  const quiet = await searchCapacity(measure, { start: 50, recover, noisy: () => false });
  expect(quiet.stop.kind).toBe('hysteresis');
  // Nor when the service at rest answers as before the search: what broke was the load's.
  overloaded = false;
  const asBefore = await searchCapacity(measure, { start: 50, recover, atRest: () => null });
  expect(asBefore.stop.kind).toBe('bracketed');
});

test('a precision of 100%: the first bracket is the answer, with no level after the break (the verification measures it again)', async () => {
  const steady = fake(700);
  let recoveries = 0;
  const r = await searchCapacity(steady.measure, {
    start: 50,
    precision: 1,
    recover: async () => {
      recoveries++;
      return { ok: true };
    },
  });
  expect(steady.asked).toEqual([50, 100, 200, 400, 800]);
  expect(r).toMatchObject({ held: { rate: 400 }, broke: { rate: 800 }, stop: { kind: 'bracketed' } });
  // No recovery inside the search: the flow's settle waits for it before the verification.
  expect(recoveries).toBe(0);
  // Any narrower precision bisects, and measures the held level again first.
  const finer = fake(700);
  await searchCapacity(finer.measure, { start: 50, precision: 0.99, recover: async () => ({ ok: true }) });
  expect(finer.asked).toEqual([50, 100, 200, 400, 800, 400, 600]);
});

// --stop-below R (choose's sweeps, R the rate wanted): a count whose search breaks at or
// below R ends there, since what holds lies under the break and a verification only steps
// down; above R, or where the machine may have broken it, the search goes on as without it.
test('--stop-below: the first break at or below it ends the search, stepping up, down or bisecting', async () => {
  // Up: 50 and 100 hold, 200 breaks at or below 200 wanted: no bisection, no recovery asked.
  const recovered = [];
  const up = await searchCapacity(fake(150).measure, {
    start: 50,
    stopBelow: 200,
    recover: async (l) => (recovered.push(l.rate), { ok: true }),
  });
  expect(up.levels.map((l) => l.rate)).toEqual([50, 100, 200]);
  expect(up.stop).toMatchObject({ kind: 'stop-below', rate: 200, level: { rate: 200 } });
  expect(up).toMatchObject({ held: { rate: 100 }, broke: { rate: 200 } });
  expect(recovered).toEqual([]);
  // Bisecting: 400 broke above 300 wanted, the bisection's 300 breaks at it: ended there.
  const mid = await searchCapacity(fake(250).measure, { start: 50, stopBelow: 300 });
  expect(mid.levels.map((l) => l.rate)).toEqual([50, 100, 200, 400, 300]);
  expect(mid.stop).toMatchObject({ kind: 'stop-below', level: { rate: 300 } });
  // Down from a first level that broke: the first break at or below it ends it, held none.
  const down = await searchCapacity(fake(10).measure, { start: 50, stopBelow: 30 });
  expect(down.levels.map((l) => l.rate)).toEqual([50, 25]);
  expect(down).toMatchObject({ held: null, stop: { kind: 'stop-below', level: { rate: 25 } } });
});

test('--stop-below: a break above it bisects as before; a break the machine may have made does not stop', async () => {
  const plain = await searchCapacity(fake(700).measure, { start: 50, precision: 0.05 });
  const above = await searchCapacity(fake(700).measure, { start: 50, precision: 0.05, stopBelow: 600 });
  expect(above.levels.map((l) => l.rate)).toEqual(plain.levels.map((l) => l.rate));
  expect(above.stop.kind).toBe('bracketed');
  // (Not calm: the search goes on to its bracket, and the verdict says whose limit it was.)
  const busy = await searchCapacity(fake(150).measure, { start: 50, stopBelow: 200, calm: () => false });
  expect(busy.stop.kind).toBe('bracketed');
  expect(busy.held.rate).toBeGreaterThan(140);
});

// A deployment that holds up to `knee`/s, except that the levels in `stalls` break the first
// time they are measured (a short level broken by a stall).
const stalled = (knee, stalls) => {
  const asked = [];
  const seen = new Set();
  const measure = async (rate) => {
    asked.push(rate);
    const stall = stalls.includes(rate) && !seen.has(rate);
    seen.add(rate);
    return { rate, ok: rate <= knee && !stall, generatorBound: null, thresholds: [] };
  };
  return { measure, asked };
};

test('recheck: a break its second measurement takes back bisects on to the next break; without it the stall bounds the search', async () => {
  // (Knee 220/s; 187.5/s stalls once: 150 held, 300 broke, 225 broke, 187.5 broke (the stall).)
  const plain = await searchCapacity(stalled(220, [187.5]).measure, { start: 75, precision: 0.05 });
  expect(plain.held.rate).toBeLessThan(187.5);
  expect(plain.rechecks).toBeUndefined();
  const { measure, asked } = stalled(220, [187.5]);
  const r = await searchCapacity(measure, { start: 75, precision: 0.05, recheck: true });
  expect(asked.filter((x) => x === 187.5)).toHaveLength(2);
  // (Then the break bounding the result, 225/s, measured once more in turn: it broke again.)
  expect(r.rechecks).toEqual([
    { rate: 187.5, held: true },
    { rate: 225, held: false },
  ]);
  expect(asked.filter((x) => x === 225)).toHaveLength(2);
  // Bisected between 187.5 (held the second time) and 225 (the next break): the knee within 5%.
  expect(r.held.rate).toBeGreaterThan(187.5);
  expect(r.held.rate).toBeLessThanOrEqual(220);
  expect(r.broke.rate).toBeGreaterThan(220);
  expect(r.broke.rate).toBeLessThanOrEqual(225);
  expect((r.broke.rate - r.held.rate) / r.held.rate).toBeLessThanOrEqual(0.05);
  expect(r.stop.kind).toBe('bracketed');
  expect(r.levels.filter((l) => l.recheck).map((l) => l.rate)).toEqual([187.5, 225]);
});

test('recheck: a break measured twice stands; twice a search at most; each level counts against --max-levels', async () => {
  const { measure, asked } = stalled(180, []);
  const r = await searchCapacity(measure, { start: 75, precision: 0.05, recheck: true });
  const lowest = r.broke.rate;
  expect(asked.filter((x) => x === lowest)).toHaveLength(2);
  expect(r.rechecks).toEqual([{ rate: lowest, held: false }]);
  expect(r.held.rate).toBeLessThanOrEqual(180);
  expect(r.broke.rate).toBeGreaterThan(180);
  expect(r.stop.kind).toBe('bracketed');
  // Every break that stalls once: each recheck takes one back and the bisection after it meets
  // the next, and no third recheck follows.
  const many = stalled(220, [187.5, 206.3, 215.7, 210.9]);
  const m = await searchCapacity(many.measure, { start: 75, precision: 0.02, recheck: true });
  expect(m.rechecks.map((x) => x.held)).toEqual([true, true]);
  expect(m.levels.filter((l) => l.recheck)).toHaveLength(2);
  // Bounded: a search out of levels before its recheck ends there, said.
  const asPlain = await searchCapacity(stalled(180, []).measure, { start: 75, precision: 0.05 });
  const bounded = await searchCapacity(stalled(180, []).measure, {
    start: 75,
    precision: 0.05,
    recheck: true,
    maxLevels: asPlain.levels.length,
  });
  expect(bounded.stop.kind).toBe('max-levels');
  expect(bounded.rechecks).toBeUndefined();
  expect(bounded.levels).toHaveLength(asPlain.levels.length);
});

test('recheck: a first level broken by a stall, taken back with no break above it, climbs again instead of standing as the bound', async () => {
  // (A catalog's sweep: its first level, 600/s, broke by a stall; 525/s too; under them it held
  // everything, and the knee was about 900/s.)
  const { measure, asked } = stalled(900, [600, 525]);
  const plain = await searchCapacity(stalled(900, [600, 525]).measure, { start: 600, precision: 0.05 });
  expect(plain.held.rate).toBeLessThan(600);
  const r = await searchCapacity(measure, { start: 600, precision: 0.05, recheck: true });
  expect(r.rechecks).toEqual([
    { rate: 525, held: true },
    { rate: 600, held: true },
  ]);
  // From 600/s (held the second time), up by the factor to 1200/s (broke), then bisected.
  expect(asked).toContain(1200);
  expect(r.held.rate).toBeGreaterThan(855);
  expect(r.held.rate).toBeLessThanOrEqual(900);
  expect(r.broke.rate).toBeGreaterThan(900);
  expect((r.broke.rate - r.held.rate) / r.held.rate).toBeLessThanOrEqual(0.05);
  expect(r.stop.kind).toBe('bracketed');
  // A climb that reaches --max-rate and holds it ends there, no break bounding it.
  const top = await searchCapacity(stalled(5000, [600, 525]).measure, {
    start: 600,
    precision: 0.05,
    recheck: true,
    maxRate: 1000,
  });
  expect(top).toMatchObject({ broke: null, stop: { kind: 'max-rate' }, held: { rate: 1000 } });
});
