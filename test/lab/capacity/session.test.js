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
const sessionOf = (dir, { down = async () => {}, deploy, log = () => {} }) =>
  deploymentSession({
    newRuntime: () => ({ assertNotUp: () => {}, down }),
    deploy,
    dir,
    folder: path.join(dir, 'single'),
    level: { levelWords: ['/x'], passed: { values: {}, tokens: [] }, slos: [], values: {} },
    start: 50,
    warmupS: 1,
    holdFor: () => 3,
    fresh: false,
    recoveryWaitS: 10,
    log,
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
  // (Each probe's window 4 s after the one before: three in a row span 10 s, as steady asks.)
  let clock = 0;
  beforeEach(() => {
    spy.mockReset();
    spy.mockImplementation(async (l) => ({
      rate: l.rate,
      at: (clock += 4000),
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
      // (The recovery's last probe, measured just before.)
      const last = { ...at, at: clock, holdS: 2 };
      const stop = await s.settle({ ok: true, settled: true, last: { p50: at.latencyMs.p50, errorsPct: 0 }, at: last });
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

// A resumed search (--run-dir) whose last level read back broke: the deployment that broke is
// gone, and the new one never saw the overload. The overload is run again on the new one
// before its recovery is checked (issue 84: a resumed search once took "a new deployment from
// here" for a recovery, and measured the level that held again on a service that never went
// through the overload).
test('after an overload read back from an earlier run: run again on this deployment, then its recovery checked', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-session-'));
  const spy = level.runLevel;
  spy.mockReset();
  // The baseline, the overload run again (it breaks), then a probe answering as before.
  const figures = [
    { ok: true, latencyMs: { min: 10, p50: 12 } },
    { ok: false, latencyMs: { min: 30, p50: 900, p99: 2000 } },
    { ok: true, latencyMs: { min: 10, p50: 13 } },
  ];
  spy.mockImplementation(async (l) => ({
    rate: l.rate,
    holdS: l.holdS,
    errorsPct: 0,
    answered: 10,
    dir: l.dir,
    ...(figures.shift() ?? { ok: false, answered: 0 }),
  }));
  const logs = [];
  try {
    const deploys = [];
    const s = sessionOf(dir, {
      deploy: async () => {
        deploys.push('up');
        return { url: 'http://127.0.0.1:1' };
      },
      log: (m) => logs.push(m),
    });
    const r = await s.recover({ rate: 80, holdS: 3, ok: false, resumed: true });
    expect(deploys).toEqual(['up']);
    // The baseline's probe (5/s), the overload at 80/s in a folder of its own, the recovery's probe.
    expect(spy.mock.calls.map(([l]) => [l.rate, path.basename(l.dir)])).toEqual([
      [5, 'probe-01'],
      [80, 'overload-again-01'],
      [5, 'probe-02'],
    ]);
    expect(r.ok).toBe(true);
    expect(r.text).toMatch(/^recovered in/);
    expect(logs.join('\n')).toMatch(
      /80\/s broke a deployment of the earlier run \(measured before\): run again on this one/,
    );
    expect(logs.join('\n')).toMatch(/80\/s again -> .*: broke again/);
    await s.down();
  } finally {
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// Issue 84: the probe at rest slower on a machine busy with other work, within the busy band
// but not the quiet one: the settle says drift was not judged (a note, not a stop, not clear).
test('settle on a busy machine, slower within the wider band: drift not judged, said', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-session-'));
  const spy = level.runLevel;
  spy.mockReset();
  const busy = { coresShare: 0.9, machineShare: 0.1 };
  const figures = [
    { latencyMs: { min: 10, p50: 12 }, ...busy },
    { latencyMs: { min: 12, p50: 20 }, ...busy },
  ];
  spy.mockImplementation(async (l) => ({
    rate: l.rate,
    holdS: l.holdS,
    ok: true,
    errorsPct: 0,
    answered: 10,
    ...figures.shift(),
  }));
  try {
    const s = sessionOf(dir, { deploy: async () => ({ url: 'http://127.0.0.1:1' }) });
    await s.measure(50);
    const at = { rate: 5, ok: true, errorsPct: 0, answered: 10, latencyMs: { min: 18, p50: 21 }, ...busy };
    const stop = await s.settle({ ok: true, at });
    expect(stop).toMatchObject({ kind: 'unjudged', unjudged: { othersPct: 80 } });
    expect(stop.unjudged.text).toMatch(/^drift could not be judged: other programs took 80% of the machine/);
    await s.down();
  } finally {
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
