'use strict';

// The order of work at the defaults (lab/choose/screened.js): every unit screened, then swept
// in the order of its bound until no unit left can be cheaper; with measuring replaced by what
// each unit's screen and sweep "measured" (the test's own figures).
jest.mock('../../../lab/choose/sweeps', () => ({ measureOne: jest.fn() }));
const { measureOne } = require('../../../lab/choose/sweeps');
const { screenAndSweep, unsweptSweep } = require('../../../lab/choose/screened');

// Four units: what one replica held and broke at in its screen, and what each count held.
const UNITS = {
  'replicated-25pct': { capPct: 25, screen: [60, 66], counts: { 2: 120, 3: 170 } },
  'replicated-50pct': { capPct: 50, screen: [130, 140], counts: { 1: 128, 2: 250 } },
  'multi-25pct': { capPct: 25, screen: [70, 75], counts: { 2: 140, 3: 200 } },
  'multi-50pct': { capPct: 50, screen: [80, 84], counts: { 2: 200, 3: 280 } },
};
const sweepsOf = () =>
  Object.entries(UNITS).map(([id, u]) => ({
    id,
    shape: id.split('-')[0],
    workers: 1,
    balancer: 'nginx',
    capPct: u.capPct,
    sized: true,
  }));

function measuring() {
  const swept = [];
  measureOne.mockImplementation(async (p, s, dir, io, o = {}) => {
    const u = UNITS[s.id];
    if (o.screen) {
      io.out.screens.push({ id: s.id });
      return { ...s, points: [{ replicas: 1, maxRate: u.screen[0], broke: u.screen[1] }] };
    }
    swept.push([s.id, s.counts, s.settings.start]);
    return { ...s, node: null, points: s.counts.map((n) => ({ replicas: n, maxRate: u.counts[n] })) };
  });
  return swept;
}

const p = { rate: 100, headroom: 0.3, maxReplicas: 32, price: null, sweeps: sweepsOf(), toCapacity: { values: {} } };
const io = () => ({ out: { screens: [] }, write: () => {}, log: () => {}, track: () => {} });

test('the units swept in the order of their bounds, until the cheapest held costs no more than the next bound', async () => {
  const swept = measuring();
  const o = io();
  const { sweeps, unswept } = await screenAndSweep(p, '/tmp/x', o);
  // Bounds (130/s wanted, over 1.25 times the rate that broke): replicated-50pct 1 x 0.5 = 0.5 cores,
  // multi-25pct 2 x 0.25 = 0.5, replicated-25pct 2 x 0.25 = 0.5, multi-50pct 2 x 0.5 = 1;
  // among equal bounds, the one whose replica held most first. replicated-50pct: 1 replica
  // held 128 (short), 2 held 250 (1 core). multi-25pct, bounded at 0.5, might be cheaper: 2
  // replicas held 140 (0.5 cores). No unit left is bounded below 0.5: none more is swept.
  expect(swept).toEqual([
    ['replicated-50pct', [1, 2], 97.5],
    ['multi-25pct', [2, 3], 105],
  ]);
  expect(sweeps.map((s) => s.id)).toEqual(['replicated-50pct', 'multi-25pct']);
  expect(unswept.map((x) => [x.unit.s.id, x.refused.slice(0, 11)])).toEqual([
    ['replicated-25pct', 'not swept: '],
    ['multi-50pct', 'not swept: '],
  ]);
  // Each screen's bound kept in choice.json's screens.
  expect(o.out.screens.find((x) => x.id === 'multi-50pct').bound).toMatchObject({ replicas: 2, cores: 1 });
  // A unit not swept is a candidate of none, with why.
  expect(unsweptSweep(unswept[0])).toMatchObject({ id: 'replicated-25pct', points: [], failed: unswept[0].refused });
});

test('a unit whose bound is below the best measured is swept too, and the cheaper one found', async () => {
  // multi-25pct needs 3 replicas (0.75 cores) measured, under the 1 core of replicated-50pct:
  // replicated-25pct (bound 0.5) might still be cheaper, and is swept (3 replicas, 0.75 cores
  // too); multi-50pct (bound 1 core) is not.
  UNITS['multi-25pct'].counts = { 2: 125, 3: 200 };
  const swept = measuring();
  const { sweeps, unswept } = await screenAndSweep(p, '/tmp/x', io());
  expect(swept.map(([id]) => id)).toEqual(['replicated-50pct', 'multi-25pct', 'replicated-25pct']);
  expect(sweeps).toHaveLength(3);
  expect(unswept.map((x) => x.unit.s.id)).toEqual(['multi-50pct']);
});
