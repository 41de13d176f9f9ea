'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
// (The levels are made up where a test says what they measured: runLevel replaced.)
jest.mock('../../../lab/capacity/level', () => ({
  ...jest.requireActual('../../../lab/capacity/level'),
  runLevel: jest.fn(),
}));
const level = require('../../../lab/capacity/level');
const { deploymentSession } = require('../../../lab/capacity/session');
const { cleanup } = require('../../../lab/ownership/cleanups');

// One deployment's session in `dir`, its runtime's down and its deploy given.
const sessionOf = (dir, { down = async () => {}, deploy }) =>
  deploymentSession({
    newRuntime: () => ({ assertNotUp: () => {}, down }),
    deploy,
    dir,
    folder: path.join(dir, 'single'),
    level: { words: ['/x'], slos: [], extra: [], context: [] },
    start: 50,
    warmupS: 1,
    holdFor: () => 3,
    fresh: false,
    recoveryWaitS: 10,
    log: () => {},
    tag: 'single',
  });

// A deployment's session over a runtime that does not come up: the level is recorded as failed,
// with why, and nothing is thrown out of the whole command (a search once lost every
// deployment already searched to one level that printed nothing).
test('a deployment that does not come up: the level is a failed one, with why', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-session-'));
  const downs = [];
  try {
    const s = sessionOf(dir, {
      down: async () => downs.push('down'),
      deploy: async () => {
        throw new Error('port 23000 (nginx) is already in use');
      },
    });
    const level = await s.measure(50);
    expect(level).toMatchObject({
      rate: 50,
      ok: false,
      failed: 'the deployment did not come up: port 23000 (nginx) is already in use',
    });
    await s.down();
  } finally {
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// The probe at rest once the knee is bracketed (settle): the recovery's last probe serves when
// it is clear of drift; one slower at its fastest answer is confirmed by another probe, and
// two in a row are drift.
describe('settle: the service at rest against its baseline', () => {
  const answers = [];
  const spy = level.runLevel;
  beforeEach(() => {
    spy.mockReset();
    spy.mockImplementation(async (l) => ({
      rate: l.rate,
      holdS: l.holdS,
      ok: true,
      errorsPct: 0,
      latencyMs: answers.shift(),
    }));
  });

  const session = (dir) => sessionOf(dir, { deploy: async () => ({ url: 'http://127.0.0.1:1' }) });
  const probe = (min, p50) => ({ rate: 5, ok: true, errorsPct: 0, latencyMs: { min, p50 } });

  test.each([
    ['clear of drift: no other probe', probe(11, 14), [], null, 0],
    [
      'slower at its fastest, and steadily so, three probes in a row: drift',
      probe(40, 45),
      [
        { min: 42, p50: 47 },
        { min: 41, p50: 46 },
      ],
      'drift',
      2,
    ],
    ['slower once, then as before: no drift', probe(40, 45), [{ min: 11, p50: 14 }], null, 1],
    [
      'a window of recent work emptying: faster probe after probe, then out of the band: no drift',
      probe(40, 45),
      [32, 25, 19, 12].map((min) => ({ min, p50: min + 3 })),
      null,
      4,
    ],
    [
      'slower but never steady, the probes run out: no claim',
      probe(40, 45),
      [60, 40, 60, 40, 60, 40].map((min) => ({ min, p50: min + 3 })),
      null,
      6,
    ],
  ])('%s', async (_what, at, next, kind, probes) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-session-'));
    try {
      const s = session(dir);
      // The deployment and its baseline (fastest 10 ms), then a level.
      answers.push({ min: 10, p50: 12 }, { min: 12, p50: 20 });
      await s.measure(50);
      const before = spy.mock.calls.length;
      answers.push(...next);
      const stop = await s.settle({ ok: true, settled: true, last: { p50: at.latencyMs.p50, errorsPct: 0 }, at });
      expect(spy.mock.calls.length - before).toBe(probes);
      expect(stop?.kind ?? null).toBe(kind);
      if (kind) expect(stop.drift.text).toMatch(/its fastest answer went from 10 ms to 41 ms/);
      await s.down();
    } finally {
      await cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
