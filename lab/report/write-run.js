'use strict';

const fs = require('node:fs');
const path = require('node:path');
const loadRun = require('./load-run');
const { renderRunReport } = require('./run-report');

// A run killed before it wrote its summary gets one, from its records, marked interrupted.
function writeReport(dir) {
  const run = loadRun(dir);
  if (run.summary.rebuilt)
    fs.writeFileSync(path.join(dir, 'summary.json'), `${JSON.stringify(run.summary, null, 2)}\n`);
  const html = renderRunReport(run);
  const file = path.join(dir, 'report.html');
  fs.writeFileSync(file, html);
  return file;
}

module.exports = { writeReport };
