'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parseCommandLine, ROOT } = require('../options');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderCompare } = require('../report/run-report');

const USAGE = 'usage: npm run compare -- <results-dir> <results-dir> [...] [--out FILE]';

async function compare(argv) {
  const { values, positionals } = parseCommandLine(argv, { out: { type: 'string' } }, USAGE);
  if (values.help) return { stdout: USAGE };
  if (positionals.length < 2) throw labError('LAB_ERR_USAGE', `expected two or more results directories\n${USAGE}`);
  const runs = positionals.map((d) => {
    const dir = path.resolve(d);
    if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
    return loadRun(dir);
  });
  const out = path.resolve(
    values.out ??
      path.join(
        ROOT,
        'results',
        `compare-${new Date()
          .toISOString()
          .replace(/\.\d+Z$/, '')
          .replace(/:/g, '-')}.html`,
      ),
  );
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, renderCompare(runs));
  return { stdout: out };
}

compare.usage = USAGE;
module.exports = compare;
