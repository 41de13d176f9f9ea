'use strict';

const path = require('node:path');
const { labError } = require('../../common/errors');
const { check } = require('../ownership/identity');
const { present, readJson, readJsonLines } = require('./files');
const { summarize, machineSamplesOf } = require('./summary');
const { parseThreshold, evaluate } = require('./thresholds');
const { nodeTable } = require('../monitoring/node-table');
const { parseExpect } = require('./expect-status');

// The summary of a run that was killed before it could write one (SIGKILL, a crash of the
// machine): its records, node samples and run.json (what the run was, written before its
// load started) are on disk, and make the same summary, marked interrupted. A run that is
// still going is not summarized behind its back.
const REBUILT = 'rebuilt from the files of a run that ended before it wrote its summary (killed)';

function rebuildSummary(dir) {
  const runFile = path.join(dir, 'run.json');
  const recordsFile = path.join(dir, 'records.jsonl');
  if (!present(runFile) || !present(recordsFile)) return null;
  const run = readJson(runFile);
  if (run.runner && check(run.runner) === 'alive') {
    throw labError(
      'LAB_ERR_USAGE',
      `the run in ${dir} is still going (pid ${run.runner.pid}): its summary and report are written when it ends`,
    );
  }
  const records = readJsonLines(recordsFile);
  const samples = readJsonLines(path.join(dir, 'nodes.jsonl'));
  const machine = present(path.join(dir, 'machine.json')) ? readJson(path.join(dir, 'machine.json')) : null;
  const last = records.reduce((a, r) => (typeof r.at === 'number' ? Math.max(a, r.at) : a), 0);
  const summary = summarize({
    endpoint: run.endpoint,
    scenario: run.scenario,
    deployment: run.deployment ?? null,
    target: run.target,
    phases: run.phases,
    status: 'interrupted',
    startedAt: run.startedAt,
    endedAt: last ? new Date(last).toISOString() : run.startedAt,
    resultsDir: dir,
    records,
    generator: run.generator,
    generatorSamples: samples.filter((s) => s.nodes?.generator).map((s) => ({ at: s.at, ...s.nodes.generator })),
    machineSamples: machineSamplesOf(samples),
    machine,
    expect: parseExpect(run.expectStatus),
  });
  summary.thresholds = evaluate((run.thresholds || []).map(parseThreshold), summary);
  summary.nodes = nodeTable(samples);
  summary.rebuilt = REBUILT;
  return summary;
}

module.exports = { rebuildSummary };
