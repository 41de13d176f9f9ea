'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand, flag, ROOT } = require('../terminal/flags');
const { stamp } = require('../results/run-dir');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderCompare } = require('../report/run-report');
const { isOurPage } = require('../report/page');
const { parseCondition, gate, gateText } = require('../out/gate');
const { readJson } = require('../results/files');

const USAGE = `usage: npm run compare -- <results-dir> <results-dir> [...] [--out FILE]
       npm run compare -- <base> <new> --fail-if 'p99>+10%' [--fail-if ...]
Writes a page of the runs side by side. As a gate for pipelines (docs/pipelines.md), --fail-if
compares the new run with the base and exits 99 when it is worse by more than the margin:
  p50 p90 p95 p99 max mean errors>+N% or >+N (ms, points of %); rps<-N%
Each side is a run's folder, or a folder of runs (a study's runs/, several repetitions): with
several runs a side the verdict is Welch's t-test on each run's figure, one-sided at 2.5%.`;
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 2, name: 'results-dir' },
  flags: { out: flag.path(), 'fail-if': flag.list(parseCondition) },
});

// A side of a gate: a run's folder (its summary.json), or a folder of runs (each subfolder
// with one; a study's folder through its runs/).
function sideOf(dir) {
  const summary = (d) => path.join(d, 'summary.json');
  if (fs.existsSync(summary(dir))) return [dir];
  const base = fs.existsSync(path.join(dir, 'runs')) ? path.join(dir, 'runs') : dir;
  const runs = fs
    .readdirSync(base, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(summary(path.join(base, e.name))))
    .map((e) => path.join(base, e.name))
    .sort();
  if (!runs.length)
    throw labError('LAB_ERR_USAGE', `${dir} holds no run's results (no summary.json in it or its folders)`);
  return runs;
}

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
  if (values['fail-if'].length) return failIf(values, positionals);
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

// compare --fail-if: the gate's verdict, exit 99 when the new run is worse.
function failIf(values, positionals) {
  if (positionals.length !== 2)
    throw labError(
      'LAB_ERR_USAGE',
      '--fail-if compares two sides: give the base and the new (each a run or a folder of runs)',
    );
  const [base, fresh] = positionals.map((d) => {
    const dir = path.resolve(d);
    if (!fs.existsSync(dir)) throw labError('LAB_ERR_USAGE', `no such directory: ${dir}`);
    return sideOf(dir).map((r) => readJson(path.join(r, 'summary.json')));
  });
  const result = gate(values['fail-if'], base, fresh);
  if (values.json) return { stdout: JSON.stringify(result, null, 2), exitCode: result.worse ? 99 : 0 };
  return { stdout: gateText(result), exitCode: result.worse ? 99 : 0 };
}

compare.usage = USAGE;
module.exports = compare;
