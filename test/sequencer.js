'use strict';

const fs = require('node:fs');
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

const ROOT = path.join(__dirname, '..');
// Every test file's time in the last CI committed (bench/ci.js writes it).
const RECORD = path.join(ROOT, 'bench', 'results', 'ci.json');

// Each test file's time as the last committed CI measured it: { 'test/...js': ms }.
function recordedTimes(file = RECORD) {
  try {
    const { files = [] } = JSON.parse(fs.readFileSync(file, 'utf8'));
    return Object.fromEntries(files.filter((f) => f.file && f.seconds > 0).map((f) => [f.file, f.seconds * 1000]));
  } catch {
    return {};
  }
}

// The longest files first, on a fresh clone too. Jest orders by the times of its own last run
// on this machine, which a fresh clone has not got: it then goes by file size, and three of the
// longest end-to-end files (220 to 320 s) started last in CI, with the other workers idle at
// the end. The times of the last committed CI stand in for jest's own until it has them; a
// file neither knows (a new one) runs first, as jest runs one it has no time for.
class ByRecordedTime extends Sequencer {
  constructor(...args) {
    super(...args);
    this.recorded = recordedTimes();
  }

  time(test) {
    return super.time(test) ?? this.recorded[path.relative(ROOT, test.path)];
  }
}

module.exports = ByRecordedTime;
module.exports.recordedTimes = recordedTimes;
