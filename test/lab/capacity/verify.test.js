'use strict';

const { verify, stepDown, MAX_TRIES } = require('../../../lab/capacity/verify');

// A knee that the longer verification runs find lower than the search's short levels did.
const knee = (holds) => async (rate, holdS) => ({ rate, ok: rate <= holds, holdS, thresholds: [] });
const p = { repetitions: 1, precision: 0.05, floor: 1, holdFor: () => 6, verifyHoldFor: () => 12, slos: [] };
const held = (rate) => ({ held: { rate, holdS: 6 } });

test('a rate that does not hold is stepped down by the precision twice, then in growing steps until one holds', async () => {
  const { attempts } = await verify(p, held(1000), { measure: knee(700), name: 'single' });
  expect(attempts.map((a) => a.rate)).toEqual([1000, 950, 902.5, 812.3, 649.8]);
  expect(attempts.at(-1).ok).toBe(true);
  // Each run held for the verification's own time (--verify-hold), not a level's.
  expect(attempts.every((a) => a.runs[0].holdS === 12)).toBe(true);
  expect([0, 1, 2, 3, 4, 5, 6].map((t) => stepDown(0.05, t))).toEqual([0.05, 0.05, 0.1, 0.2, 0.4, 0.5, 0.5]);
  // Half at most, from the first try: a precision of 100% (no bisection) steps to half, not to nothing.
  expect([0, 1, 2].map((t) => stepDown(1, t))).toEqual([0.5, 0.5, 0.5]);
});

test('at most MAX_TRIES tries, never below the floor', async () => {
  const none = await verify(p, held(1000), { measure: knee(1), name: 'single' });
  expect(none.attempts).toHaveLength(MAX_TRIES);
  expect(none.attempts.every((a) => !a.ok)).toBe(true);
  const floored = await verify({ ...p, floor: 600 }, held(1000), { measure: knee(1), name: 'x' });
  expect(floored.attempts.map((a) => a.rate)).toEqual([1000, 950, 902.5, 812.3, 649.8]);
});

test('a run that broke is followed by the recovery check; a service that does not recover ends it', async () => {
  const r = await verify({ ...p, repetitions: 2 }, held(100), {
    measure: knee(10),
    recover: async () => ({ ok: false, text: 'not recovered after 60 s' }),
    name: 'single',
  });
  expect(r.attempts).toHaveLength(1);
  expect(r.attempts[0]).toMatchObject({ ok: false, notRecovered: { text: 'not recovered after 60 s' } });
  expect(r.attempts[0].runs).toHaveLength(1);
  expect(r.stop.kind).toBe('no-recovery');
});

test('a verification whose recovery finds drift ends with that drift, which the verdict says', async () => {
  const { verdictOf } = require('../../../lab/capacity/verdict');
  const drift = { rule: 'settled', text: 'a 4/s probe at rest answered slower than before the search' };
  const r = await verify(p, held(100), {
    measure: knee(10),
    recover: async () => ({ ok: false, text: 'not recovered after 12.7 s', drift }),
    name: 'replicated',
  });
  expect(r.stop).toMatchObject({ kind: 'drift', drift });
  const found = { held: { rate: 100, holdS: 6 }, broke: { rate: 110, ok: false, thresholds: [] }, levels: [] };
  const d = verdictOf('replicated', { label: 'replicated' }, found, r, { slos: [], timeLimitS: 600 });
  expect(d).toMatchObject({ maxRate: null, bound: 'drift' });
  expect(d.text).toMatch(/^a 4\/s probe at rest answered slower than before the search: the service changed/);
});

// The first run breaks at the very rate the search held: measured again as the search measured
// it, it tells a knee that moves with time from a service that changed.
test('the rate held broke for longer but holds again for the search hold: the knee moves with time, said, stepped down', async () => {
  const asked = [];
  // Holds 100/s for 6 s, only 91/s for 12 s: a knee that moves with how long the load lasts.
  const measure = async (rate, holdS) => {
    asked.push([rate, holdS]);
    return { rate, holdS, ok: holdS <= 6 ? rate <= 100 : rate <= 91, thresholds: [] };
  };
  const r = await verify(p, held(100), { measure, recover: async () => ({ ok: true }), name: 'single' });
  expect(r.moves).toEqual({ rate: 100, heldS: 6, brokeS: 12 });
  expect(r.drift).toBeNull();
  expect(asked).toEqual([
    [100, 12],
    [100, 6],
    [95, 12],
    [90.3, 12],
  ]);
  expect(r.attempts.at(-1)).toMatchObject({ rate: 90.3, ok: true });
});

test('the rate held broke for longer and breaks again, twice, for the search hold: the service changed (drift), no step down', async () => {
  let t = 0;
  const measure = async (rate, holdS) => ({ rate, holdS, atS: (t += 60), ok: false, thresholds: [] });
  // (Held twice in the search: its level, and measured again before bisecting.)
  const heldTwice = [
    { rate: 50, ok: true },
    { rate: 50, ok: true },
  ];
  const atRest = () => ({ text: 'slower at rest' });
  const r = await verify(
    p,
    { held: { rate: 50, holdS: 6, atS: 120 }, levels: heldTwice },
    { measure, recover: async () => ({ ok: true }), name: 'single', atRest },
  );
  expect(r.attempts.map((a) => a.rate)).toEqual([50]);
  expect(r.again).toHaveLength(2);
  expect(r.drift).toMatchObject({ rule: 'again', rate: 50 });
  expect(r.drift.text).toBe(
    '50/s held for 6 s at 2:00 but not for 12 s at 1:00, nor again for 6 s at 3:00, and slower at rest',
  );
  // Broken once, then held: not drift (a busy machine's stall), the knee moved.
  let n = 0;
  const once = await verify(p, held(50), {
    measure: async (rate, holdS) => ({ rate, holdS, ok: holdS === 6 && n++ > 0, thresholds: [] }),
    recover: async () => ({ ok: true }),
    name: 'single',
  });
  expect(once.drift).toBeNull();
  expect(once.moves).toMatchObject({ rate: 50 });
  expect(once.again.map((l) => l.ok)).toEqual([false, true]);
});

test('on a fresh deployment per level nothing changed under it: a break at the rate held is a knee that moves', async () => {
  const r = await verify(p, held(100), { measure: knee(90), name: 'single' });
  expect(r.moves).toEqual({ rate: 100, heldS: 6, brokeS: 12 });
  expect(r.again).toEqual([]);
});

test('the time limit ends the verification before a run that may not end in it; a restart or a failed run ends it', async () => {
  let runs = 0;
  const r = await verify(p, held(100), {
    measure: knee(1),
    limit: () => (runs++ >= 2 ? 'no time left' : null),
    name: 'x',
  });
  expect(r.stop).toEqual({ kind: 'time-limit', text: 'no time left' });
  expect(r.attempts).toHaveLength(2);
  const crashed = await verify(p, held(100), {
    measure: async (rate, holdS) => ({ rate, holdS, ok: false, restarts: [{ node: 'replica-1' }] }),
    recover: async () => ({ ok: true }),
    name: 'x',
  });
  expect(crashed.stop.kind).toBe('restarted');
  const failed = await verify(p, held(100), {
    measure: async (rate) => ({ rate, ok: false, failed: 'no JSON' }),
    name: 'x',
  });
  expect(failed.stop).toMatchObject({ kind: 'level-failed', level: { failed: 'no JSON' } });
});

// /ping behind nginx on a busy machine held 2,800/s once, at the knee's edge, then broke the
// verification and twice again: noise, not drift (every probe at rest answered as before).
test('held once only in the search, or broken again while the service at rest answers as before: no drift, the verification steps down', async () => {
  const broken = async (rate, holdS) => ({ rate, holdS, ok: rate < 45, thresholds: [] });
  const slower = () => ({ text: 'slower at rest' });
  const once = await verify(
    p,
    { held: { rate: 50, holdS: 6 }, levels: [{ rate: 50, ok: true }] },
    { measure: broken, recover: async () => ({ ok: true }), name: 'single', atRest: slower },
  );
  expect(once.drift).toBeNull();
  expect(once.moves).toBeNull();
  expect(once.again.map((l) => l.ok)).toEqual([false, false]);
  expect(once.attempts.at(-1)).toMatchObject({ ok: true });
  const asBefore = await verify(
    p,
    {
      held: { rate: 50, holdS: 6 },
      levels: [
        { rate: 50, ok: true },
        { rate: 50, ok: true },
      ],
    },
    { measure: broken, recover: async () => ({ ok: true }), name: 'single', atRest: () => null },
  );
  expect(asBefore.drift).toBeNull();
  expect(asBefore.attempts.at(-1)).toMatchObject({ ok: true });
});

// A service whose requests grew costlier (issue 84): the rate the search held, run again by the
// verification, cost three times the CPU a request; it is drift by what a request costs, said
// with both figures, and nothing is measured again or stepped down (the machine is never blamed).
test('the same rate costlier a request in the verification: drift by its cost, both figures said', async () => {
  const { verdictOf } = require('../../../lab/capacity/verdict');
  const cost = (ms) => ({ cpuMsPerRequest: ms, tiers: {}, cpuCores: 1.7 });
  const search = {
    rate: 45,
    ok: true,
    holdS: 20,
    requests: 900,
    answered: 900,
    cost: cost(10),
    atS: 60,
    thresholds: [],
  };
  let again = 0;
  const r = await verify(
    p,
    { held: search, levels: [search, search] },
    {
      measure: async (rate, holdS) => ({
        rate,
        holdS,
        ok: false,
        requests: 1800,
        answered: 1700,
        cost: cost(31.8),
        atS: 200,
        thresholds: [],
      }),
      again: async () => ((again += 1), { rate: 45, ok: false, thresholds: [] }),
      recover: async () => ({ ok: true }),
      name: 'multi',
    },
  );
  expect(again).toBe(0);
  expect(r.attempts).toHaveLength(1);
  // 31.8 ms per answer, 1,700 of 1,800 answered: 30 ms per request sent, against 10.
  expect(r.drift).toMatchObject({ rule: 'cost', rate: 45, from: 10, to: 30.033 });
  const v = verdictOf(
    'multi',
    { label: 'multi' },
    {
      held: { ...search, coresShare: 0.6 },
      broke: { rate: 50, ok: false, coresShare: 0.88, thresholds: [] },
      levels: [search],
      stop: { kind: 'bracketed' },
    },
    r,
    { slos: [], maxRate: 20000 },
  );
  expect(v).toMatchObject({ maxRate: null, bound: 'drift' });
  expect(v.text).toMatch(
    /^45\/s cost 10 ms of CPU a request in the search at 1:00 and 30\.033 ms in the verification at 3:20: the service changed under its search \(drift: each request does more work than it did\)/,
  );
  expect(v.text).not.toMatch(/machine/);
});

// A service paced by timers whose line grew in the verification (figures made for the case):
// its requests cost 0.15 ms of CPU in the search and 0.4 ms in the verification, the backlog's
// bookkeeping, 0.5% of a core more at 20/s: nothing a deployment is held back by, so no drift by
// cost; the verification goes on as for any rate that did not hold longer.
test('a request costlier by a sliver of a core at its rate: no drift by cost', async () => {
  const cost = (ms) => ({ cpuMsPerRequest: ms, tiers: {}, cpuCores: 0.01 });
  const search = { rate: 20, ok: true, holdS: 2, requests: 40, answered: 40, cost: cost(0.15), thresholds: [] };
  const r = await verify(
    p,
    { held: search, levels: [search] },
    {
      measure: async (rate, holdS) => ({
        rate,
        holdS,
        ok: rate < 18,
        requests: rate * holdS,
        answered: rate * holdS,
        cost: cost(rate === 20 ? 0.4 : 0.15),
        thresholds: [],
      }),
      again: async () => ({ rate: 20, ok: true, thresholds: [] }),
      recover: async () => ({ ok: true }),
      name: 'single',
    },
  );
  expect(r.drift ?? null).toBeNull();
  expect(r.attempts.length).toBeGreaterThan(1);
});
