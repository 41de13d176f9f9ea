'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { WORK } = require('../paths');

// A time stamp for file names: the ISO time to the second, with no colon (Windows shares).
function stamp(d = new Date()) {
  return d
    .toISOString()
    .replace(/\.\d+Z$/, '')
    .replace(/:/g, '-');
}

// Where a run's results go: exactly --run-dir when given (a study names its runs so that it
// can resume them), else a new folder under --results-dir (default results/) named by the
// time and what ran, made here and no other run's: two runs of the same thing started in the
// same second get -2, -3... (Two capacity searches once shared one folder, each reading the
// other's levels back as its own.)
function runDirOf(values, name) {
  if (values['run-dir']) return values['run-dir'];
  const base = path.join(values['results-dir'] ?? path.join(WORK, 'results'), `${stamp()}-${name}`);
  fs.mkdirSync(path.dirname(base), { recursive: true });
  for (let n = 1; ; n++) {
    const dir = n === 1 ? base : `${base}-${n}`;
    try {
      fs.mkdirSync(dir);
      return dir;
    } catch (err) {
      if (err.code !== 'EEXIST' || n >= 1000) throw err;
    }
  }
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
