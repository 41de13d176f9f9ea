'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { junitXml } = require('./junit');
const { stepSummary, appendStepSummary } = require('./step-summary');
const { own } = require('../ownership/cleanups');
const { requestNames } = require('../scenario/model');

// Where the run's results go besides its folder (lab/outputs/): the OTLP exporters, started with
// the load (they read the records as they are written) and ended before the summary, which
// says what each delivered; then the JUnit file and $GITHUB_STEP_SUMMARY from the summary.

// After the deployment and the generator's plan: one exporter per --out.
function startOutputs(run) {
  const { p } = run;
  // The run's one request (GET /ping) names its figures when the engine keeps no names.
  const names = p.model ? requestNames(p.model) : [];
  // (OpenTelemetry's SDK is required only when an --out asks for it: loading it took about
  // 85 ms of CPU, a quarter of what a capacity level's own process spent, in every run.)
  const outs = p.values.out || [];
  const { startOtlp } = outs.length ? require('./otlp') : {};
  run.exporters = outs.map((o) =>
    startOtlp({
      url: o.url,
      recordsFile: run.file('records.jsonl'),
      attributes: { run: path.basename(run.dir), deployment: p.deployment && run.state ? p.deployment.label : null },
      target: run.target,
      name: names.length === 1 ? names[0] : p.endpoint,
      intervalMs: Math.max(1, p.values['out-interval'] ?? 5) * 1000,
      log: run.log,
      // The sampler's latest second, per node, and the runtime probe's figures so far.
      nodes: () => run.monitoring?.samples?.at(-1)?.nodes ?? {},
      runtime: () => run.readings?.read()?.runtime?.nodes ?? {},
    }),
  );
  // Interrupted or failed: the last export is still attempted, bounded in time.
  for (const e of run.exporters) own(() => e.end());
}

// The exporters' last records and flush; their statuses for the summary.
async function endOutputs(run) {
  const out = [];
  for (const e of run.exporters || []) out.push(await e.end());
  run.outputs = out;
  return out;
}

// The files written from the summary: the JUnit file and the step summary. Returns the
// entries added to summary.outputs.
function writeOutputs(run, summary, reportFile) {
  const added = [];
  const junit = run.p.values.junit;
  if (junit) {
    fs.mkdirSync(path.dirname(path.resolve(junit)), { recursive: true });
    fs.writeFileSync(junit, junitXml([{ name: path.basename(run.dir), summary }]));
    added.push({ kind: 'junit', file: path.resolve(junit) });
  }
  if (appendStepSummary(stepSummary(summary, { reportFile }))) {
    added.push({ kind: 'github-step-summary', file: process.env.GITHUB_STEP_SUMMARY });
  }
  return added;
}

module.exports = { startOutputs, endOutputs, writeOutputs };
