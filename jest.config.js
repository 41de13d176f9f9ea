'use strict';

// The tests in two sets: unit (test/**/*.test.js: no process started, run with as many
// workers as cores by `npm run test:unit`) and end-to-end (test/**/*.e2e.test.js: the real
// CLI, deployments, browsers, generators). LAB_TESTS=unit or e2e picks one (scripts/test.sh
// runs lint, then unit, then e2e); without it jest runs both.
// (An environment variable rather than --selectProjects, which would swallow the file
// patterns given after it.)
// Every end-to-end test runs beside the others: a test that judges a knee, a capacity or a
// latency drives a service whose limit the test sets (a service time on timers, a fixed
// concurrency, a CPU cap: test/fixtures/apps/paced), not the machine's free CPU. (Those once
// ran alone, after the others, one at a time: judged against the share of two cores each got,
// 2 to 4 of them failed beside three other files.)
const IGNORED = ['/node_modules/', '<rootDir>/results/', '<rootDir>/.lab/', '<rootDir>/.lab-engines/'];
const common = {
  testEnvironment: 'node',
  // No transform: Node runs the lab and its tests as written (CommonJS, no syntax Node lacks).
  // Jest's default passes every file it loads through Babel, and keys that pass's cache by the
  // project's path too, so on a fresh clone (every CI run) it is paid in full: the unit set
  // took 38 and 53 s with it, 31 and 34 s without (60-79 CPU-seconds of user time against
  // 44-47, `jest --no-cache`, bench/README.md). (jest.mock calls stand above the requires they
  // replace, where Babel would have hoisted them.)
  transform: {},
  modulePathIgnorePatterns: ['<rootDir>/.lab/', '<rootDir>/results/', '<rootDir>/.lab-engines/'],
};
const SETS = {
  unit: {
    ...common,
    displayName: 'unit',
    testMatch: ['<rootDir>/test/**/*.test.js'],
    testPathIgnorePatterns: [...IGNORED, '\\.e2e\\.test\\.js$'],
  },
  e2e: {
    ...common,
    // (LAB_TEST_CPU=1: each file's CPU counted, every process it starts included:
    // test/cpu-environment.js.)
    ...(process.env.LAB_TEST_CPU ? { testEnvironment: '<rootDir>/test/cpu-environment.js' } : {}),
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/**/*.e2e.test.js'],
    testPathIgnorePatterns: IGNORED,
  },
};
const only = process.env.LAB_TESTS;
const withoutName = ({ displayName: _name, ...rest }) => rest;
if (only && !SETS[only]) throw new Error(`LAB_TESTS=${only}: expected unit or e2e`);

module.exports = {
  // A test's own time-out is a guard against a hang, never a judgement of speed: an end-to-end
  // test that takes 25-40 s on a quiet machine took over 60 s beside five other files (a CDN
  // of four capped edges, deployed and run). Those without one of their own get 3 minutes.
  testTimeout: only === 'unit' ? 60000 : 180000,
  // (The end-to-end tests mostly wait on the processes they start, on timers and loads of a
  // stated length: three workers a core. Measured: bench/results/tests.json.)
  maxWorkers: 6,
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // (One set: its options at the top, without a display name to prefix every line with.)
  ...(only ? withoutName(SETS[only]) : { projects: [SETS.unit, SETS.e2e] }),
};
