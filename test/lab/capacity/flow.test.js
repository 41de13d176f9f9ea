'use strict';

const { searchDeployment } = require('../../../lab/capacity/flow');

// One deployment's search over a simulated session: the search, the service at rest, then
// the verification, or why there is none.
const p = {
  start: 50,
  maxRate: 20000,
  precision: 0.1,
  floor: 1,
  maxLevels: 24,
  repetitions: 1,
  holdFor: () => 6,
  verifyHoldFor: () => 12,
  slos: [],
};
const session = ({ knee = 70, recovered = true, settled = null } = {}) => {
  const calls = [];
  return {
    calls,
    measure:
      (role) =>
      async (rate, holdS = 6) => {
        calls.push(`${role ?? 'level'} ${rate}`);
        return { rate, holdS, ok: rate <= knee, thresholds: [] };
      },
    recover: async () => (
      calls.push('recover'),
      recovered ? { ok: true, last: { p50: 5 } } : { ok: false, text: 'no' }
    ),
    settle: async (r) => (calls.push(`settle ${r.last.p50}`), settled),
    limit: () => null,
    log: () => {},
    tag: 'single',
  };
};

test('bracketed, recovered, at rest: then verified', async () => {
  const s = session();
  const { found, verification } = await searchDeployment(p, s);
  expect(found.stop.kind).toBe('bracketed');
  expect(found.settled).toBeNull();
  expect(verification.attempts.at(-1).ok).toBe(true);
  // The probe at rest comes after the recovery from the search's last level, with its figures.
  const i = s.calls.indexOf('settle 5');
  expect(s.calls[i - 1]).toBe('recover');
  expect(s.calls[i + 1]).toMatch(/^verification /);
});

test('slower at rest than before the search: drift, and no verification', async () => {
  const drift = { kind: 'drift', drift: { rule: 'settled', text: 'slower' } };
  const s = session({ settled: drift });
  const { found, verification } = await searchDeployment(p, s);
  expect(found.settled).toBe(drift);
  expect(verification).toBeNull();
  expect(s.calls.some((c) => c.startsWith('verification'))).toBe(false);
});

// Drift not judged (a busy machine): no stop; the verification runs and the search keeps why.
test('drift not judged at rest: the verification runs, and the search keeps the sentence', async () => {
  const s = session({ settled: { kind: 'unjudged', unjudged: { text: 'drift could not be judged: …' } } });
  const { found, verification } = await searchDeployment(p, s);
  expect(found.settled).toBeNull();
  expect(found.unjudged).toEqual({ text: 'drift could not be judged: …' });
  expect(verification.attempts.at(-1).ok).toBe(true);
});

test('not recovered before the probe at rest: said as no recovery, no verification', async () => {
  const s = session({ recovered: false });
  const { found, verification } = await searchDeployment(p, s);
  expect(verification).toBeNull();
  // (The search's own first recovery already failed: it stopped there.)
  expect(['no-recovery']).toContain(found.stop.kind === 'bracketed' ? found.settled.kind : found.stop.kind);
});

// capacity --recheck: the search's lowest break measured once more, then the verification.
test('--recheck: the lowest break measured once more after the bisection, then verified', async () => {
  const s = session({ knee: 70 });
  const { found, verification } = await searchDeployment({ ...p, recheck: true }, s);
  expect(found.rechecks).toEqual([{ rate: found.broke.rate, held: false }]);
  const levels = s.calls.filter((c) => c.startsWith('level '));
  expect(levels.filter((c) => c === `level ${found.broke.rate}`)).toHaveLength(2);
  expect(verification.attempts.at(-1).ok).toBe(true);
  // Kept in the row (capacity.json), as measured, whatever ended it (here its time limit, cut
  // before the verification).
  const { verdictOf } = require('../../../lab/capacity/verdict');
  const cut = { ...found, stop: { kind: 'time-limit', text: 'the time limit' } };
  const v = verdictOf('single', { label: 'single' }, cut, null, { ...p, recheck: true });
  expect(v.rechecks).toEqual(found.rechecks);
  const plain = session({ knee: 70 });
  expect((await searchDeployment(p, plain)).found.rechecks).toBeUndefined();
});

// capacity --stop-below R: a break at or below R on a calm machine ends the search with no
// probe at rest and no verification (it cannot hold R: a verification only steps down); the
// verdict is a bound from above, left out of the fit.
test('--stop-below: stopped at a break under it, not settled nor verified; the verdict says below', async () => {
  const { verdictOf } = require('../../../lab/capacity/verdict');
  const { scalingOf } = require('../../../lab/capacity/scaling');
  const s = session({ knee: 70 });
  const q = { ...p, stopBelow: 100 };
  const { found, verification } = await searchDeployment(q, s);
  expect(found.stop).toMatchObject({ kind: 'stop-below', rate: 100 });
  expect(verification).toBeNull();
  expect(s.calls).toEqual(['level 50', 'level 100']);
  const v = verdictOf('replicated', { label: 'replicated' }, found, verification, q);
  expect(v).toMatchObject({ maxRate: null, bound: 'stop-below', below: 100, stopBelow: 100, held: { rate: 50 } });
  expect(v.text).toMatch(/^below 100\/s: 100\/s broke .* in the search; 50\/s held for 6 s before it; stopped there/);
  const pts = scalingOf([{ replicas: 1, verdict: v }], { deployment: 'replicated' }).points;
  expect(pts).toEqual([
    {
      replicas: 1,
      maxRate: null,
      below: 100,
      leftOut: 'it broke at 100/s, at or below 100/s (--stop-below): not verified',
    },
  ]);
  // (Said as what it is: under the rate that broke, left out of the fit.)
  const { scalingText } = require('../../../lab/report/scaling-text');
  expect(scalingText({ deployment: 'replicated', points: pts, fitRefused: '1 good point(s)' })).toMatch(
    /1 replica\(s\): under 100\/s {2}\(left out of the fit: it broke at 100\/s/,
  );
  // Above it, as without it: bracketed, settled, verified.
  const t = session({ knee: 150 });
  const above = await searchDeployment(q, t);
  expect(above.found.stop.kind).toBe('bracketed');
  expect(above.verification.attempts.at(-1).ok).toBe(true);
});

// Whose break it was: a busy machine, other work or a late generator keep the search going.
test('--stop-below stops only on a calm level: not busy, no other work, the generator on time', () => {
  const { ownBreak: calmLevel } = require('../../../lab/capacity/verdict');
  const slos = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }] };
  const level = { rate: 100, ok: false, machineShare: 0.5, coresShare: 0.6, thresholds: [] };
  expect(calmLevel(level, slos)).toBe(true);
  // Its own processes kept the cores busy: the machine's limit, whatever they waited.
  expect(calmLevel({ ...level, machineShare: 0.9, waitShare: 0.01 }, slos)).toBe(false);
  // Busy with other work: the deployment's own break only if it hardly waited for a core
  // (measured); unknown waiting is not evidence.
  for (const busy of [{ coresShare: 0.9 }, { machineShare: 0.2, coresShare: 0.6 }]) {
    expect(calmLevel({ ...level, ...busy }, slos)).toBe(false);
    expect(calmLevel({ ...level, ...busy, waitShare: 0.3 }, slos)).toBe(false);
    expect(calmLevel({ ...level, ...busy, waitShare: 0.05 }, slos)).toBe(true);
  }
  const late = {
    ...level,
    sendLagP99Ms: 40,
    thresholds: [{ text: 'p99<200', metric: 'p99', ok: false, value: 220, limit: 200 }],
  };
  expect(calmLevel(late, slos)).toBe(false);
});
