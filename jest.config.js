'use strict';

// The tests in three sets: unit (test/**/*.test.js: no process started, run with as many
// workers as cores by `npm run test:unit`), end-to-end (test/**/*.e2e.test.js: the real CLI,
// deployments, browsers, generators) and, of those, the ones that run alone (ALONE below).
// LAB_TESTS=unit, e2e or alone picks one set (the scripts do: scripts/test.sh runs lint, then
// unit, e2e, alone); without it jest runs all three.
// (An environment variable rather than --selectProjects, which would swallow the file
// patterns given after it.)
const IGNORED = ['/node_modules/', '<rootDir>/results/', '<rootDir>/.lab/', '<rootDir>/.lab-engines/'];
const common = {
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/.lab/', '<rootDir>/results/', '<rootDir>/.lab-engines/'],
};
// End-to-end files that find a knee against time (capacity searches, their verification and
// recovery, a fitted scaling law, a black box's worker count): beside three other end-to-end
// files on two cores, the machine's share each got moved their knees enough to fail 2 to 4 of
// them in some CI runs (a search with no level held, a verification found at the second try).
// They run after the others, one at a time (--runInBand), as bench/ runs them.
const ALONE = ['test/lab/capacity/[^/]+', 'test/lab/commands/characterize'];
const aloneRegex = `/(${ALONE.join('|')})\\.e2e\\.test\\.js$`;
const SETS = {
  unit: {
    ...common,
    displayName: 'unit',
    testMatch: ['<rootDir>/test/**/*.test.js'],
    testPathIgnorePatterns: [...IGNORED, '\\.e2e\\.test\\.js$'],
  },
  e2e: {
    ...common,
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/**/*.e2e.test.js'],
    testPathIgnorePatterns: [...IGNORED, aloneRegex],
  },
  alone: {
    ...common,
    displayName: 'alone',
    testRegex: aloneRegex,
    testPathIgnorePatterns: IGNORED,
  },
};
const only = process.env.LAB_TESTS;
const withoutName = ({ displayName: _name, ...rest }) => rest;
if (only && !SETS[only]) throw new Error(`LAB_TESTS=${only}: expected unit, e2e or alone`);

module.exports = {
  testTimeout: 60000,
  // (The end-to-end tests mostly wait on the processes they start: more workers than cores.)
  maxWorkers: 4,
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // (One set: its options at the top, without a display name to prefix every line with.)
  ...(only ? withoutName(SETS[only]) : { projects: [SETS.unit, SETS.e2e, SETS.alone] }),
};
