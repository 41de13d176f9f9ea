'use strict';

const path = require('node:path');
const { ROOT } = require('../paths');

// A time stamp for file names: the ISO time to the second, with no colon (Windows shares).
function stamp(d = new Date()) {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/:/g, '-');
}

// Where a run's results go: exactly --run-dir when given (a study names its runs so that it
// can resume them), else a new folder under --results-dir (default results/) named by the
// time and what ran.
function runDirOf(values, name) {
  return values['run-dir'] ?? path.join(values['results-dir'] ?? path.join(ROOT, 'results'), `${stamp()}-${name}`);
}

module.exports = { stamp, runDirOf };
