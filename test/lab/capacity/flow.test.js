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
