'use strict';

// Which runs the global setup packs and installs the lab for (./package-project.js): only
// those that run package.e2e's tests, so that any other file run alone starts at once.
const { selected } = require('./package-project');

test('the whole set, its folder, or the file itself prepares the project', () => {
  expect(selected({ testPathPattern: '' })).toBe(true);
  expect(selected({ testPathPattern: 'test/lab/api' })).toBe(true);
  expect(selected({ testPathPattern: 'test/lab/api/package.e2e.test.js' })).toBe(true);
  expect(selected({ testPathPattern: 'capacity|package' })).toBe(true);
});

test('another file, or a title filter that none of its tests match, prepares nothing', () => {
  expect(selected({ testPathPattern: 'test/lab/capacity/search.e2e.test.js' })).toBe(false);
  expect(selected({ testPathPattern: '', testNamePattern: 'bisected' })).toBe(false);
  expect(selected({ testPathPattern: '', testNamePattern: 'npx node-deploy-lab capacity' })).toBe(true);
  expect(selected({ testPathPattern: 'package', testNamePattern: "a Jest test of the project's" })).toBe(true);
});

test("a suite of other files (the container and cluster suites' --testMatch) prepares nothing", () => {
  const rootDir = '/somewhere/lab';
  expect(selected({ testPathPattern: '' }, { rootDir, testMatch: ['**/test/cluster/*.cluster.js'] })).toBe(false);
  expect(selected({ testPathPattern: '' }, { rootDir, testMatch: ['/somewhere/lab/test/**/*.e2e.test.js'] })).toBe(
    true,
  );
});
