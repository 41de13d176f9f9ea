'use strict';

const { exitCodeOf } = require('../../../lab/results/exit-code');

const done = (more = {}) => ({ status: 'completed', ...more });

test("a run's exit code: 0 held, 1 not completed, 99 a threshold crossed, Artillery's own, 21 failed checks", () => {
  expect(exitCodeOf(done())).toBe(0);
  expect(exitCodeOf({ status: 'failed (no request was answered)' })).toBe(1);
  expect(exitCodeOf({ status: 'interrupted' })).toBe(1);
  expect(exitCodeOf(done({ thresholds: [{ ok: false }] }))).toBe(99);
  expect(exitCodeOf(done({ artillery: { exitCode: 7 } }))).toBe(7);
  expect(exitCodeOf(done({ expectations: { failed: 2 } }))).toBe(21);
});

test('a crossed threshold wins over the checks and Artillery; an optional one never fails the run', () => {
  expect(exitCodeOf(done({ thresholds: [{ ok: false }], artillery: { exitCode: 1 }, expectations: { failed: 1 } }))).toBe(99);
  expect(exitCodeOf(done({ thresholds: [{ ok: false, optional: true }, { ok: true }] }))).toBe(0);
});
