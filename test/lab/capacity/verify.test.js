'use strict';

const { verify, stepDown, MAX_TRIES } = require('../../../lab/capacity/verify');

// A knee that the longer verification runs find lower than the search's short levels did.
const knee = (holds) => async (rate) => ({ rate, ok: rate <= holds, holdS: 12, thresholds: [] });
const p = { repetitions: 1, precision: 0.05, floor: 1, holdFor: () => 6, slos: [] };

test('a rate that does not hold is stepped down by the precision twice, then in growing steps until one holds', async () => {
  const attempts = await verify(p, { held: { rate: 1000 } }, { measure: knee(700), name: 'single' });
  expect(attempts.map((a) => a.rate)).toEqual([1000, 950, 902.5, 812.3, 649.8]);
  expect(attempts.at(-1).ok).toBe(true);
  expect([0, 1, 2, 3, 4, 5, 6].map((t) => stepDown(0.05, t))).toEqual([0.05, 0.05, 0.1, 0.2, 0.4, 0.5, 0.5]);
});

test('at most MAX_TRIES tries, never below the floor', async () => {
  const none = await verify(p, { held: { rate: 1000 } }, { measure: knee(1), name: 'single' });
  expect(none).toHaveLength(MAX_TRIES);
  expect(none.every((a) => !a.ok)).toBe(true);
  const floored = await verify({ ...p, floor: 600 }, { held: { rate: 1000 } }, { measure: knee(1), name: 'x' });
  expect(floored.map((a) => a.rate)).toEqual([1000, 950, 902.5, 812.3, 649.8]);
});

test('a run that broke is followed by the recovery check; a service that does not recover ends it', async () => {
  const r = await verify(
    { ...p, repetitions: 2 },
    { held: { rate: 100 } },
    {
      measure: knee(10),
      recover: async () => ({ ok: false, text: 'not recovered after 60 s' }),
      name: 'single',
    },
  );
  expect(r).toHaveLength(1);
  expect(r[0]).toMatchObject({ ok: false, notRecovered: { text: 'not recovered after 60 s' } });
  expect(r[0].runs).toHaveLength(1);
});
