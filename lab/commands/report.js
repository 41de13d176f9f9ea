'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderRunReport } = require('../report/run-report');

const USAGE = 'usage: npm run report -- <results-dir>   (writes <results-dir>/report.html)';
const COMMAND = defineCommand({ usage: USAGE, positionals: { names: ['results-dir'] } });

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

async function report(argv) {
  const { help, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const dir = path.resolve(positionals[0]);
  if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
  return { stdout: writeReport(dir) };
}

report.usage = USAGE;
report.writeReport = writeReport;
module.exports = report;
