'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand, flag, ROOT } = require('../cli/flags');
const { stamp } = require('../results/run-dir');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderCompare } = require('../report/run-report');
const { isOurPage } = require('../report/page');

const USAGE = 'usage: npm run compare -- <results-dir> <results-dir> [...] [--out FILE]';
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 2, name: 'results-dir' },
  flags: { out: flag.path() },
});

// Where the page goes: --out FILE, or a new page in --out DIR (a folder was an "unexpected
// failure" once), or results/. An existing file is overwritten only when it is a page the lab
// wrote (lab/report/page.js).
function outFile(out) {
  const fresh = (dir) => path.join(dir, `compare-${stamp()}.html`);
  if (out === undefined) return fresh(path.join(ROOT, 'results'));
  let stat;
  try {
    stat = fs.statSync(out);
  } catch {
    return out;
  }
  if (stat.isDirectory()) return fresh(out);
  let head = '';
  try {
    const fd = fs.openSync(out, 'r');
    const buf = Buffer.alloc(2048);
    head = buf.subarray(0, fs.readSync(fd, buf, 0, 2048, 0)).toString('utf8');
    fs.closeSync(fd);
  } catch {
    // unreadable: not a page of ours
  }
  if (!stat.isFile() || !isOurPage(head)) {
    throw labError(
      'LAB_ERR_NOT_OURS',
      '--out',
      out,
      'it is a file the lab did not write, and would be overwritten',
      'choose another file name, or a folder',
    );
  }
  return out;
}

async function compare(argv) {
  const { help, values, positionals } = COMMAND.parse(argv);
  if (help) return { stdout: USAGE };
  const runs = positionals.map((d) => {
    const dir = path.resolve(d);
    if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
    return loadRun(dir);
  });
  const out = outFile(values.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, renderCompare(runs));
  return { stdout: out };
}

compare.usage = USAGE;
module.exports = compare;
