'use strict';

const fs = require('node:fs');
const os = require('node:os');
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

test('the run folder: --run-dir as given, else a new stamped one under --results-dir, made by this run alone', () => {
  expect(runDirOf({ 'run-dir': '/x/mine' }, 'ping-ramp-single')).toBe('/x/mine');
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-results-'));
  try {
    // Runs of one thing started in the same second: each its own folder (two capacity searches
    // once shared one, each reading the other's levels back as its own).
    const dirs = [1, 2, 3].map(() => runDirOf({ 'results-dir': results }, 'ping-ramp-single'));
    for (const dir of dirs) {
      expect(path.dirname(dir)).toBe(results);
      expect(fs.statSync(dir).isDirectory()).toBe(true);
    }
    expect(path.basename(dirs[0])).toMatch(/^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-ping-ramp-single$/);
    expect(new Set(dirs).size).toBe(3);
  } finally {
    fs.rmSync(results, { recursive: true, force: true });
  }
});
