'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const { writeReport } = require('../report/write-run');

const USAGE = 'usage: npm run report -- <results-dir>   (writes <results-dir>/report.html)';
const COMMAND = defineCommand({ usage: USAGE, positionals: { names: ['results-dir'] } });

async function report(argv) {
  const { help, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const dir = path.resolve(positionals[0]);
  if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
  return { stdout: writeReport(dir) };
}

report.usage = USAGE;
module.exports = report;
