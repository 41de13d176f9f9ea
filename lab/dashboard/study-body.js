'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { html, table } = require('../report/html');
const { lineChart } = require('../report/chart');
const { seconds } = require('../measure/records');
const { maybeJson: readJson } = require('../results/files');

// The live page of a study: where it is (which run, how long so far and to go), every run
// with its headline figures once done, and the run in progress second by second from the
// records it is writing (the report's chart module draws them).

// A finished run's headline: answers a second, median, p99, errors (a scenario), or its
// own verdict's words (a characterization, a capacity search).
function headline(dir) {
  const s = readJson(path.join(dir, 'summary.json'));
  if (s) {
    const errors = Object.values(s.errors || {}).reduce((a, b) => a + b, 0);
    return {
      status: s.status,
      rate: s.meanResponseRate ?? '-',
      p50: s.responseTimeMs?.p50 ?? '-',
      p99: s.responseTimeMs?.p99 ?? '-',
      errors,
    };
  }
  const c = readJson(path.join(dir, 'result.json'));
  if (c) return { status: 'completed', rate: '-', p50: '-', p99: '-', errors: '-', note: c.verdict?.kind ?? '' };
  const cap = readJson(path.join(dir, 'capacity.json'));
  if (cap) return { status: 'completed', rate: '-', p50: '-', p99: '-', errors: '-', note: 'capacity found' };
  return null;
}

function currentRun(dir) {
  let text;
  try {
    text = fs.readFileSync(path.join(dir, 'records.jsonl'), 'utf8');
  } catch {
    return html`<p class="note">starting (deploying, or the generator has not reported yet)</p>`;
  }
  const records = text
    .split('\n')
    .filter((l) => l.trim())
    .flatMap((l) => {
      try {
        return [JSON.parse(l)];
      } catch {
        return []; // the line being written
      }
    });
  const secs = seconds(records);
  if (!secs.length) return html`<p class="note">the generator has started; its first second is not over yet</p>`;
  const t0 = secs[0].at;
  const x = (at) => (at - t0) / 1000;
  const launched = secs.reduce((a, s) => a + s.launched, 0);
  const completed = secs.reduce((a, s) => a + s.completed, 0);
  const errors = secs.reduce((a, s) => a + Object.values(s.errors || {}).reduce((p, q) => p + q, 0), 0);
  return html`<p
      id="counters"
      data-launched="${launched}"
      data-completed="${completed}"
      data-errors="${errors}"
    >
      this run: launched <b>${launched}</b>, completed <b>${completed}</b>, errors <b>${errors}</b>
    </p>
    ${lineChart(
      [
        { name: 'launched /s', points: secs.map((s) => [x(s.at), s.launched]) },
        { name: 'completed /s', points: secs.map((s) => [x(s.at), s.completed]) },
      ],
      { title: 'This run: per second', xLabel: 'time', time: true, yLabel: 'per second', height: 220 },
    )}
    ${lineChart(
      [
        { name: 'median', points: secs.filter((s) => s.latencyMs).map((s) => [x(s.at), s.latencyMs.p50]) },
        { name: 'max', points: secs.filter((s) => s.latencyMs).map((s) => [x(s.at), s.latencyMs.max]) },
      ],
      { title: 'This run: response time per second (ms)', xLabel: 'time', time: true, yLabel: 'ms', height: 220 },
    )}`;
}

// o: { title, plan, runDir(step), current (index or null), startedAt, expectedS, failures, headlines (a cache) }
function studyBody(o) {
  const done = [];
  const rows = o.plan.map((step, i) => {
    const dir = o.runDir(step);
    let h = o.headlines.get(step.id);
    if (!h && i !== o.current) {
      h = headline(dir);
      if (h) o.headlines.set(step.id, h);
    }
    if (h) done.push(step.id);
    const status = i === o.current ? 'running' : o.failures[step.id] ? 'failed' : h ? h.status : 'to do';
    return [
      i + 1,
      step.id,
      step.what,
      status,
      h?.rate ?? '',
      h?.p50 ?? '',
      h?.p99 ?? '',
      h?.errors ?? '',
      h?.note ?? '',
    ];
  });
  const elapsedS = (Date.now() - o.startedAt) / 1000;
  const step = o.current !== null ? o.plan[o.current] : null;
  return html`<h1>${o.title}</h1>
    <h2 id="where" data-done="${done.length}" data-total="${o.plan.length}">
      ${step ? html`Run ${o.current + 1} of ${o.plan.length}: ${step.id}` : 'Between runs'}
    </h2>
    <p>
      ${done.length} of ${o.plan.length} runs done; ${Math.round(elapsedS)} s so far, about
      ${Math.round(o.expectedS)} s planned in all. ${step ? step.what : ''}
    </p>
    ${step ? currentRun(o.runDir(step)) : ''}
    <h2>Runs</h2>
    ${table(['#', 'run', 'what', 'status', 'answers /s', 'median ms', 'p99 ms', 'errors', ''], rows)}`;
}

module.exports = { studyBody, headline };
