'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

// The order jest starts the files in: the longest first, by each file's time in the last CI
// run committed (bench/results/ci.json, every file's seconds as test/summary-reporter.js
// measured them). Why: the end-to-end set runs six files at a time and is CPU-bound, so its
// wall time is the longest worker's; jest's own order on a fresh clone (no timing cache: it
// is keyed by the clone's path) is by file size, which in CI run G left a 394 s file to start
// late and end 50 s after the others (the schedule replayed from its times: 885 s by size,
// 835 s longest first, which is the set's CPU-bound floor). A file the table does not know
// (a new one) goes first: it may be long, and started first it cannot be a tail.
const TIMES = path.join(__dirname, '..', 'bench', 'results', 'ci.json');
const ROOT = path.join(__dirname, '..');

// Every file's seconds from a CI record ({ files: [{ file, seconds }] }), keyed by its path
// relative to the project; an empty map when there is no readable record.
function recordedSeconds(file = TIMES) {
  try {
    const { files } = JSON.parse(fs.readFileSync(file, 'utf8'));
    return new Map((files || []).filter((f) => Number.isFinite(f.seconds)).map((f) => [f.file, f.seconds]));
  } catch {
    return new Map();
  }
}

// [{ key, seconds (null: unknown), size }] -> the same, in the order to start them: unknown
// ones first (largest file first, jest's own guess), then the known ones longest first.
function longestFirst(entries) {
  const unknown = entries.filter((e) => e.seconds === null).sort((a, b) => b.size - a.size || cmp(a.key, b.key));
  const known = entries.filter((e) => e.seconds !== null).sort((a, b) => b.seconds - a.seconds || cmp(a.key, b.key));
  return [...unknown, ...known];
}
const cmp = (a, b) => (a < b ? -1 : a > b ? 1 : 0);

class LongestFirst extends Sequencer {
  sort(tests) {
    const seconds = recordedSeconds();
    const size = (p) => {
      try {
        return fs.statSync(p).size;
      } catch {
        return 0;
      }
    };
    const entries = tests.map((test) => {
      const key = path.relative(ROOT, test.path).split(path.sep).join('/');
      return { key, seconds: seconds.has(key) ? seconds.get(key) : null, size: size(test.path), test };
    });
    return longestFirst(entries).map((e) => e.test);
  }
}

module.exports = LongestFirst;
module.exports.longestFirst = longestFirst;
module.exports.recordedSeconds = recordedSeconds;
