'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parseCommandLine } = require('../options');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderRunReport } = require('../report/run-report');

const USAGE = 'usage: npm run report -- <results-dir>   (writes <results-dir>/report.html)';

function writeReport(dir) {
  const html = renderRunReport(loadRun(dir));
  const file = path.join(dir, 'report.html');
  fs.writeFileSync(file, html);
  return file;
}

async function report(argv) {
  const { values, positionals } = parseCommandLine(argv, {}, USAGE);
  if (values.help) return { stdout: USAGE };
  if (positionals.length !== 1) throw labError('LAB_ERR_USAGE', `expected one results directory\n${USAGE}`);
  const dir = path.resolve(positionals[0]);
  if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
  return { stdout: writeReport(dir) };
}

report.usage = USAGE;
report.writeReport = writeReport;
module.exports = report;
