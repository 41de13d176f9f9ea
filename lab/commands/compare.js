'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { defineCommand, flag } = require('../terminal/flags');
const { WORK } = require('../paths');
const { stamp } = require('../results/run-dir');
const { labError } = require('../../common/errors');
const loadRun = require('../report/load-run');
const { renderCompare, label } = require('../report/run-report');
const { comparedLines } = require('../results/render-profile');
const { isOurPage } = require('../report/page');
const { parseCondition, gate, gateText } = require('../analysis/gate');
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
// with one; a study's folder through its runs/), which must all be repetitions of one test:
// `compare RUN results/` once pooled ten unrelated runs as repetitions and exited 99.
// Returns [{ dir, summary }].
function sideOf(dir) {
  const summary = (d) => path.join(d, 'summary.json');
  if (fs.existsSync(summary(dir))) return [{ dir, summary: readJson(summary(dir)) }];
  const base = fs.existsSync(path.join(dir, 'runs')) ? path.join(dir, 'runs') : dir;
  const runs = fs
    .readdirSync(base, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(summary(path.join(base, e.name))))
    .map((e) => path.join(base, e.name))
    .sort()
    .map((d) => ({ dir: d, summary: readJson(summary(d)) }));
  if (!runs.length)
    throw labError('LAB_ERR_RESULTS_FOLDER', dir, "it holds no run's results (no summary.json in it or its folders)");
  const tests = new Map();
  for (const r of runs) {
    const t = testOf(r.summary);
    tests.set(t, [...(tests.get(t) || []), path.basename(r.dir)]);
  }
  if (tests.size > 1) {
    const list = [...tests].map(
      ([t, names]) => `${t}: ${names.slice(0, 3).join(', ')}${names.length > 3 ? ` and ${names.length - 3} more` : ''}`,
    );
    throw labError(
      'LAB_ERR_RESULTS_FOLDER',
      dir,
      `it holds runs of ${tests.size} different tests, which are not repetitions of one another (${list.join('; ')}): give a folder that holds only repetitions of one test (the same endpoint or script, scenario and deployment)`,
    );
  }
  return runs;
}

// What makes runs repetitions of one test: what loaded it, the scenario, the deployment.
function testOf(s) {
  const where = s.deployment?.label ?? s.deployment?.name ?? s.deployment ?? s.target ?? '?';
  return `${s.endpoint ?? '?'} ${s.scenario ?? '?'} on ${where}`;
}

// A run's folder or a folder of runs, as given: a file or a missing path is a usage error
// (a file once gave ENOTDIR, exit 1).
function folderArg(d) {
  const dir = path.resolve(d);
  let stat;
  try {
    stat = fs.statSync(dir);
  } catch {
    throw labError('LAB_ERR_RESULTS_FOLDER', dir, 'no such folder');
  }
  if (!stat.isDirectory())
    throw labError(
      'LAB_ERR_RESULTS_FOLDER',
      dir,
      "it is a file: give a run's folder (results/<run>) or a folder of runs",
    );
  return dir;
}

// Where the page goes: --out FILE, or a new page in --out DIR (a folder was an "unexpected
// failure" once), or results/. An existing file is overwritten only when it is a page the lab
// wrote (lab/report/page.js).
function outFile(out) {
  const fresh = (dir) => path.join(dir, `compare-${stamp()}.html`);
  if (out === undefined) return fresh(path.join(WORK, 'results'));
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

// (argv: a command line, or a job: the library's, lab/run/job.js.)
async function compare(argv) {
  const { help, values, positionals } = COMMAND.read(argv);
  if (help) return { stdout: USAGE };
  if (values['fail-if'].length) return failIf(values, positionals);
  const runs = positionals.map(folderArg).map((dir) => loadRun(dir));
  const out = outFile(values.out);
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, renderCompare(runs));
  // Profiled runs (--profile): their hottest functions and statements side by side, here too.
  const profiled = comparedLines(
    runs.map((r) => r.summary),
    runs.map((r) => label(r)),
  );
  return { stdout: profiled.length ? `${profiled.join('\n')}\n\n${out}` : out };
}

// compare --fail-if: the gate's verdict, exit 99 when the new run is worse.
function failIf(values, positionals) {
  if (positionals.length !== 2)
    throw labError(
      'LAB_ERR_MISSING_ARG',
      'the base and the new to --fail-if, which compares two sides (each a run or a folder of runs)',
    );
  const [base, fresh] = positionals.map(folderArg).map((dir) => sideOf(dir).map((r) => r.summary));
  const result = gate(values['fail-if'], base, fresh);
  if (values.json) return { stdout: JSON.stringify(result, null, 2), exitCode: result.worse ? 99 : 0 };
  return { stdout: gateText(result), exitCode: result.worse ? 99 : 0 };
}

compare.usage = USAGE;
// (Its flags' schema, which the library validates its options with: lab/api/options.js.)
compare.COMMAND = COMMAND;
module.exports = compare;
