'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { longestFirst, recordedSeconds } = require('./sequencer');

// The files' start order (test/sequencer.js): a schedule of six workers is as long as its
// longest worker, so the longest files start first and unknown ones before them.
test('files start longest first by their recorded time; unknown ones first, largest first', () => {
  const order = longestFirst([
    { key: 'a', seconds: 10, size: 900 },
    { key: 'b', seconds: 390, size: 100 },
    { key: 'c', seconds: null, size: 50 },
    { key: 'd', seconds: 120, size: 5000 },
    { key: 'e', seconds: null, size: 70 },
  ]).map((e) => e.key);
  expect(order).toEqual(['e', 'c', 'b', 'd', 'a']);
});

// Replayed on CI run G's times (bench/README.md): six workers, each file to the first free
// one. Longest first ends at the set's floor (its seconds over six, to a second); the size
// order jest uses on a fresh clone ended 50 s later. (A schedule of the record, not a timed
// assertion: it fails if the order stops being longest first.)
test('on a recorded run, longest first ends within a file of the ideal six-worker schedule', () => {
  const files = [...recordedSeconds(path.join(__dirname, 'fixtures', 'ci-run-g.json')).entries()];
  expect(files.length).toBeGreaterThan(80);
  const finish = (order) => {
    const workers = Array(6).fill(0);
    for (const [, s] of order) {
      workers.sort((x, y) => x - y);
      workers[0] += s;
    }
    return Math.max(...workers);
  };
  const total = files.reduce((a, [, s]) => a + s, 0);
  const ordered = longestFirst(files.map(([key, seconds]) => ({ key, seconds, size: 0 }))).map((e) => [
    e.key,
    e.seconds,
  ]);
  const longest = Math.max(...files.map(([, s]) => s));
  expect(finish(ordered)).toBeLessThanOrEqual(total / 6 + 1);
  // (The reverse, shortest first, leaves the longest file as the tail.)
  expect(finish([...ordered].reverse())).toBeGreaterThan(total / 6 + longest / 2);
});

test('no record, or one that does not parse, is an empty table (every file unknown)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'seq-'));
  fs.writeFileSync(path.join(dir, 'bad.json'), '{');
  expect(recordedSeconds(path.join(dir, 'bad.json')).size).toBe(0);
  expect(recordedSeconds(path.join(dir, 'missing.json')).size).toBe(0);
  fs.rmSync(dir, { recursive: true, force: true });
});
