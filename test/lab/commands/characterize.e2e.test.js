'use strict';

const crypto = require('node:crypto');
const { lab, runProgram, freePortBase, tmpStateDir, errorCode, jsonOf, flagsOf } = require('../../helper');

// Against the lab's own black boxes, for a random group key: the verdict must match
// `node bbox --reveal` exactly in kind and workers, and within 5% in delay. Delays are
// scaled by 0.4 (explicit overrides, 240-800 ms), the verdict's delay compared with the scaled
// value: a delay on timers, against which a machine busy with five other test files is a few
// ms of noise. (At 0.2, 120 ms, a busy machine once made an asynchronous box's burst answer
// late and read it as synchronous.) One key a run: every CI run draws a new one.
const SCALE = 0.4;
const keys = [crypto.randomBytes(4).toString('hex')];
// (A characterization's probes wait on the box's delays, up to 800 ms each here: 20 to 60 s
// alone, and once past jest's default 60 s beside five other files.) Run first, as the other
// tests that judge timing: the boxes are its children, in the same session as the other files'
// commands. A test's time-out, by the delays' scale (x1: 30 s more); the lab's own, 30 s under
// it, so that the command is stopped (SIGINT, then SIGKILL 20 s on) before jest gives up.
const CHARACTERIZE_MS = 150000;
const testMs = (scale) => CHARACTERIZE_MS + (scale > SCALE ? 30000 : 0);

async function reveal(key) {
  const r = await runProgram('bbox', ['--reveal', '--key', key]);
  return jsonOf(r);
}

async function characterize(target, key, extra = [], scale = SCALE) {
  const base = await freePortBase();
  const r = await lab(
    [
      'characterize',
      target,
      ...flagsOf({
        key: key,
        delayScale: scale,
        json: true,
        portBase: base,
        stateDir: tmpStateDir(),
        resultsDir: tmpStateDir(),
      }),
      ...extra,
    ],
    { first: true, timeoutMs: testMs(scale) - 30000 },
  );
  if (r.code !== 0) throw new Error(`characterize failed (${r.code}): ${r.stderr}`);
  return jsonOf(r);
}

function expectMatch(result, truth, scale = SCALE) {
  expect(result.verdict.kind).toBe(truth.kind);
  if (truth.kind === 'sync') expect(result.verdict.workers).toBe(truth.workers);
  const expected = Math.round(truth.delayMs * scale);
  expect(Math.abs(result.verdict.delayMs - expected) / expected).toBeLessThanOrEqual(0.05);
}

describe.each(keys)('characterize the black boxes of key %s', (key) => {
  test.each(['bbox1', 'bbox2'])(
    '%s matches --reveal',
    async (box) => {
      const truth = (await reveal(key))[box];
      const result = await characterize(box, key);
      expectMatch(result, truth);
      expect(result.verdict.explanation.length).toBeGreaterThan(40);
    },
    testMs(SCALE),
  );
});

// Through the service, the delays as the report has them (x1, 900 ms for bbox2): the path
// (nginx, the service, its call to the box) adds to every request a time no timer of the
// test sets, about 3 ms on a quiet machine and 19 ms in CI beside five other files, which at
// x0.4 (360 ms) was past the 5% asked (CI, 2026-12-02: 378.8 ms). At 900 ms, 5% is 45 ms.
test(
  "through the service and nginx, the default key gives the report's bbox2: synchronous, 3 workers",
  async () => {
    const truth = (await reveal(''))['bbox2'];
    const result = await characterize('bbox2', '', ['--via', 'service'], 1);
    expectMatch(result, truth, 1);
    expect(result.url).toMatch(/\/bbox2$/);
  },
  testMs(1),
);

test('bad targets and flags are usage errors', async () => {
  const r = await lab(['characterize', 'bbox3', '--state-dir', tmpStateDir()]);
  expect(r.code).toBe(2);
  expect(errorCode(r.stderr)).toBe('LAB_ERR_UNKNOWN_NAME');
  expect(r.stderr).toContain('bbox3');
  const v = await lab(['characterize', 'bbox1', '--via', 'ssh', '--state-dir', tmpStateDir()]);
  expect(v.code).toBe(2);
  expect(errorCode(v.stderr)).toBe('LAB_ERR_UNKNOWN_NAME');
  expect(v.stderr).toContain('ssh');
});
