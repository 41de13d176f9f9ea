'use strict';

// The tests in two sets: unit (test/**/*.test.js: no process started, run with as many
// workers as cores by `npm run test:unit`) and end-to-end (test/**/*.e2e.test.js: the real
// CLI, deployments, browsers, generators). LAB_TESTS=unit or e2e picks one set (the scripts
// do: scripts/test.sh runs lint, then unit, then e2e); without it jest runs both.
// (An environment variable rather than --selectProjects, which would swallow the file
// patterns given after it.)
const IGNORED = ['/node_modules/', '<rootDir>/results/', '<rootDir>/.lab/', '<rootDir>/.lab-engines/'];
const common = {
  testEnvironment: 'node',
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
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/**/*.e2e.test.js'],
    testPathIgnorePatterns: IGNORED,
  },
};
const only = process.env.LAB_TESTS;
const withoutName = ({ displayName: _name, ...rest }) => rest;
if (only && !SETS[only]) throw new Error(`LAB_TESTS=${only}: expected unit or e2e`);

module.exports = {
  testTimeout: 60000,
  // (The end-to-end tests mostly wait on the processes they start: more workers than cores.)
  maxWorkers: 4,
  globalSetup: '<rootDir>/test/global-setup.js',
  globalTeardown: '<rootDir>/test/global-teardown.js',
  reporters: ['default', '<rootDir>/test/summary-reporter.js'],
  // (One set: its options at the top, without a display name to prefix every line with.)
  ...(only ? withoutName(SETS[only]) : { projects: [SETS.unit, SETS.e2e] }),
};
