'use strict';

const { html, table } = require('./html');
const page = require('./page');
const { lineChart } = require('./chart');
const { mib } = require('../topology/caps');

// The capacity command's results (capacity.json) as a table beside the seed's, and as a
// page: pure functions of that file, so a page can be written again from it. The live
// dashboard (capacity --dashboard) draws the same body from the results gathered so far.
function capacityRows(out) {
  const e = out.estimate;
  const v = out.verification;
  const seed = out.seed;
  const rows = [
    [
      'seed 002 (Go, k6, napkin math)',
      `${seed.connections} connections used ${seed.systemMB} MB`,
      `${seed.estimate}`,
      'not verified',
    ],
    [
      'this lab (Node + ws, fit)',
      e.fit
        ? `${mib(e.fit.baseBytes)} MiB + ${Math.round(e.fit.perConnectionBytes / 102.4) / 10} KiB per connection (r² ${Math.round(e.fit.r2 * 1000) / 1000})`
        : 'no fit',
      e.capacity ?? '-',
      v
        ? v.verified !== null
          ? `first failure at ${v.verified}`
          : `at least ${v.peak}: no failure, limited by ${v.limitedBy}`
        : 'not run',
    ],
  ];
  const w = out.withinReach;
  if (w) {
    rows.push([
      `this lab, checked within reach (${mib(w.limitBytes)} MiB)`,
      'the same fit',
      `${w.estimate} (for ${mib(w.limitBytes)} MiB)`,
      w.verified !== null
        ? `first failure at ${w.verified}`
        : `at least ${w.peak}: no failure, limited by ${w.limitedBy}`,
    ]);
  }
  return { head: ['who', 'memory model', `capacity for ${mib(out.limitBytes)} MiB`, 'verified'], rows };
}

// Participants connected and the service's memory, second by second, through every step
// (estimate, verification, the check within reach), each step's start marked.
function timelineChart(timeline) {
  if (!timeline || timeline.length === 0) return '';
  const t0 = timeline[0].at;
  const x = (s) => Math.round((s.at - t0) / 100) / 10;
  const markers = [];
  timeline.forEach((s, i) => {
    if (i === 0 || s.step !== timeline[i - 1].step) markers.push({ x: x(s), label: s.step });
  });
  const withMemory = timeline.filter((s) => Number.isFinite(s.rssBytes));
  return lineChart(
    [
      { name: 'participants connected', points: timeline.map((s) => [x(s), s.active]) },
      {
        name: 'service RSS (MiB)',
        points: withMemory.map((s) => [x(s), s.rssBytes / 2 ** 20]),
        axis: 'right',
        color: '#d62728',
      },
      {
        name: 'heap used (MiB)',
        points: withMemory
          .filter((s) => Number.isFinite(s.heapUsedBytes))
          .map((s) => [x(s), s.heapUsedBytes / 2 ** 20]),
        axis: 'right',
        dashed: true,
        color: '#d62728',
      },
      {
        name: 'memory limit (MiB)',
        points: timeline.filter((s) => s.limitBytes).map((s) => [x(s), s.limitBytes / 2 ** 20]),
        axis: 'right',
        dashed: true,
        color: '#7f7f7f',
      },
    ],
    {
      title: 'Participants and the service memory over time',
      xLabel: 'time since the first step started',
      time: true,
      yLabel: 'participants',
      y2Label: 'MiB',
      xMin: 0,
      markers,
    },
  );
}

// The body of capacity.html and of the live page. `out` may be partial (a run in progress):
// no fit yet, no verification yet.
function capacityBody(out, { live = false } = {}) {
  const t = capacityRows(out);
  const last = out.timeline?.at(-1);
  const v = out.verification;
  const w = out.withinReach;
  const points = table(
    ['connections held', 'RSS MiB', 'heap used MiB', 'samples'],
    out.estimate.points.map((pt) => [pt.connections, mib(pt.bytes), mib(pt.heapUsedBytes), pt.samples]),
  );
  // Live, the page opens with where the run is (also as data- attributes, for scripts and
  // the browser test).
  const now = live
    ? html`<h2>Live: ${last ? last.step : 'starting'}</h2>
        <p id="counters" data-active="${last?.active ?? 0}" data-seconds="${out.timeline?.length ?? 0}">
          <b>${last?.active ?? 0}</b> participants connected; the service's RSS
          <b>${last && Number.isFinite(last.rssBytes) ? `${mib(last.rssBytes)} MiB` : 'not read this second'}</b>;
          ${out.estimate.points.length} of ${out.levels ?? '?'} levels held.
        </p>`
    : '';
  return html`${now}<h2>Estimate and verification, beside the seed's</h2>
    ${table(t.head, t.rows)}
    <h2>Participants and memory, step by step</h2>
    ${out.timeline?.length ? timelineChart(out.timeline) : html`<p class="note">No second recorded yet.</p>`}
    <h2>Memory at each level</h2>
    ${out.estimate.points.length ? points : html`<p class="note">No level held yet.</p>`}
    ${v ? html`<p class="note">Verified under ${v.how}; OOM kills: ${v.oomKills ?? 'not measured'}.</p>` : ''}
    ${w ? html`<p class="note">Checked within reach under ${w.how}; OOM kills: ${w.oomKills ?? 'not measured'}.</p>` : ''}
    ${out.notes ? html`<p class="note">${out.notes.join('; ')}.</p>` : ''}`;
}

function capacityPage(out) {
  return page(`signaling capacity for ${mib(out.limitBytes)} MiB`, capacityBody(out), out.machine);
}

module.exports = { capacityRows, capacityPage, capacityBody, timelineChart };
