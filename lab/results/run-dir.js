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

// A URL path as a folder name's words: /api/items -> api-items, / -> root.
function pathSlug(urlPath) {
  return (
    String(urlPath)
      .replace(/[^A-Za-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'root'
  );
}

module.exports = { stamp, runDirOf, pathSlug };
