'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand, flag, ROOT } = require('../cli/flags');
const { stamp } = require('../results/run-dir');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderCompare } = require('../report/run-report');

const USAGE = 'usage: npm run compare -- <results-dir> <results-dir> [...] [--out FILE]';
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 2, name: 'results-dir' },
  flags: { out: flag.path() },
});

async function compare(argv) {
  const { help, values, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const runs = positionals.map((d) => {
    const dir = path.resolve(d);
    if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
    return loadRun(dir);
  });
  const out = values.out ?? path.join(ROOT, 'results', `compare-${stamp()}.html`);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, renderCompare(runs));
  return { stdout: out };
}

compare.usage = USAGE;
module.exports = compare;
