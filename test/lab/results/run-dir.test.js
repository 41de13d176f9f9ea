'use strict';

const path = require('node:path');
const { stamp, runDirOf, pathSlug } = require('../../../lab/results/run-dir');

test('a URL path as a folder name: its words joined by dashes, the root named', () => {
  expect(pathSlug('/api/items')).toBe('api-items');
  expect(pathSlug('/spin?ms=5')).toBe('spin-ms-5');
  expect(pathSlug('/')).toBe('root');
  expect(pathSlug('/../../etc/passwd')).toBe('etc-passwd');
});

test('a stamp: the time to the second, no colon', () => {
  expect(stamp(new Date('2026-11-27T07:05:09.123Z'))).toBe('2026-11-27T07-05-09');
});

test('the run folder: --run-dir as given, else a new stamped one under --results-dir', () => {
  expect(runDirOf({ 'run-dir': '/x/mine' }, 'ping-ramp-single')).toBe('/x/mine');
  const dir = runDirOf({ 'results-dir': '/x/results' }, 'ping-ramp-single');
  expect(path.dirname(dir)).toBe('/x/results');
  expect(path.basename(dir)).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-ping-ramp-single$/);
});
