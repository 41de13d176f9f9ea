'use strict';

// The line CI reads and each file's record: counts, skips never silent, a file that could
// not run counted once, each file's slow tests named slowest first.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const SummaryReporter = require('./summary-reporter');
const { ROOT } = require('./helper');

// (When the run started, as jest says it: each file's start is told from it.)
const RUN_START = 1_700_000_000_000;

function fileResult(name, { seconds, startedAfter = 0, tests = [], execError, pending = 0 }) {
  const passing = tests.filter((t) => t.status === 'passed').length;
  const failing = tests.filter((t) => t.status === 'failed').length;
  return {
    testFilePath: path.join(ROOT, name),
    perfStats: { start: RUN_START + startedAfter * 1000, end: RUN_START + (startedAfter + seconds) * 1000 },
    numPassingTests: passing,
    numFailingTests: failing,
    numPendingTests: pending,
    testExecError: execError,
    testResults: tests.map((t) => ({ fullName: t.name, status: t.status, duration: t.ms, failureMessages: t.why })),
  };
}

function report(testResults, env = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-reporter-'));
  const saved = { suite: process.env.LAB_TEST_SUITE, tests: process.env.LAB_TESTS };
  const write = jest.spyOn(process.stdout, 'write').mockImplementation(() => true);
  try {
    process.env.LAB_TESTS = env.LAB_TESTS ?? 'e2e';
    delete process.env.LAB_TEST_SUITE;
    const numPassedTests = testResults.reduce((n, r) => n + r.numPassingTests, 0);
    const numFailedTests = testResults.reduce((n, r) => n + r.numFailingTests, 0);
    const numPendingTests = testResults.reduce((n, r) => n + r.numPendingTests, 0);
    new SummaryReporter({}, { dir }).onRunComplete(new Set(), {
      startTime: RUN_START,
      testResults,
      numPassedTests,
      numFailedTests,
      numPendingTests,
      numTodoTests: 0,
    });
    const read = (f) => (fs.existsSync(path.join(dir, f)) ? fs.readFileSync(path.join(dir, f), 'utf8') : null);
    return {
      line: read('summary.txt'),
      files: JSON.parse(read('files-e2e.json')),
      failures: read('failures-e2e.txt'),
      printed: write.mock.calls.map((c) => c[0]).join(''),
    };
  } finally {
    write.mockRestore();
    for (const [k, v] of [
      ['LAB_TEST_SUITE', saved.suite],
      ['LAB_TESTS', saved.tests],
    ])
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

test("the last line counts passed, failed (a file that could not run once) and skipped, each file's slow tests named slowest first, and when it started", () => {
  const seen = report([
    fileResult('test/a.e2e.test.js', {
      seconds: 12.34,
      startedAfter: 41.26,
      tests: [
        { name: 'quick', status: 'passed', ms: 400 },
        { name: 'long', status: 'passed', ms: 9000 },
        {
          name: 'middle',
          status: 'failed',
          ms: 2560,
          why: ['\u001b[31mexpected 1\u001b[39m\n  at x.js:1\nreceived 2'],
        },
      ],
    }),
    fileResult('test/b.e2e.test.js', { seconds: 3, execError: { message: 'Cannot find module x' } }),
    fileResult('test/c.e2e.test.js', {
      seconds: 30,
      startedAfter: 3,
      pending: 1,
      tests: [{ name: 'only', status: 'passed', ms: 29000 }],
    }),
  ]);
  expect(seen.line).toBe('3 passed, 2 failed, 1 skipped\n');
  expect(seen.printed).toBe('3 passed, 2 failed, 1 skipped\n');
  expect(seen.files).toEqual([
    {
      file: 'test/c.e2e.test.js',
      seconds: 30,
      started: 3,
      passed: 1,
      failed: 0,
      skipped: 1,
      tests: [{ name: 'only', seconds: 29 }],
    },
    {
      file: 'test/a.e2e.test.js',
      seconds: 12.3,
      started: 41.3,
      passed: 2,
      failed: 1,
      skipped: 0,
      tests: [
        { name: 'long', seconds: 9 },
        { name: 'middle', seconds: 2.6 },
      ],
    },
    { file: 'test/b.e2e.test.js', seconds: 3, started: 0, passed: 0, failed: 1, skipped: 0, tests: [] },
  ]);
  expect(seen.failures.split('\n')).toEqual([
    'test/a.e2e.test.js › middle: expected 1 | received 2',
    'test/b.e2e.test.js: Cannot find module x',
    '',
  ]);
});

test('a green run leaves no failures file', () => {
  const seen = report([
    fileResult('test/a.e2e.test.js', { seconds: 1, tests: [{ name: 'ok', status: 'passed', ms: 5 }] }),
  ]);
  expect(seen.line).toBe('1 passed, 0 failed, 0 skipped\n');
  expect(seen.failures).toBeNull();
  expect(seen.files[0].tests).toEqual([]);
});
