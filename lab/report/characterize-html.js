'use strict';

const { lineChart } = require('./chart');
const { html } = require('./html');
const { modelCurve } = require('../analysis/black-box-model');
const page = require('./page');

// The characterization as one self-contained HTML page: the verdict, the chart of latency
// and throughput against concurrency with the fitted model, and the sweep table.
function characterizeBody(result, heading = 'h1') {
  const { verdict, target } = result;
  const levels = verdict.levels;
  const maxC = Math.max(1, ...levels.map((l) => l.concurrency));
  const model = modelCurve(verdict, maxC);
  const chart = lineChart(
    [
      { name: 'mean latency (ms)', points: levels.map((l) => [l.concurrency, l.latencyMs.mean]), dots: true },
      { name: 'p95 latency (ms)', points: levels.map((l) => [l.concurrency, l.latencyMs.p95]), dots: true },
      { name: 'model latency', points: model.map((p) => [p.c, p.latencyMs]), dashed: true, color: '#1f77b4' },
      {
        name: 'throughput (req/s)',
        points: levels.map((l) => [l.concurrency, l.throughput]),
        axis: 'right',
        dots: true,
        color: '#2ca02c',
      },
      {
        name: 'model throughput',
        points: model.map((p) => [p.c, p.throughput]),
        axis: 'right',
        dashed: true,
        color: '#2ca02c',
      },
    ],
    {
      title: 'Latency and throughput against concurrency',
      xLabel: 'concurrent requests',
      yLabel: 'latency (ms)',
      y2Label: 'throughput (req/s)',
      xMin: 0,
    },
  );
  const rows = levels.map(
    (l) =>
      html`<tr>
        <td>${l.concurrency}</td>
        <td>${l.completed}</td>
        <td>${Number(l.throughput).toFixed(2)}</td>
        <td>${ms(l.latencyMs.min)}</td>
        <td>${ms(l.latencyMs.mean)}</td>
        <td>${ms(l.latencyMs.p95)}</td>
        <td>${ms(l.latencyMs.max)}</td>
      </tr> `,
  );
  const facts =
    verdict.kind === 'sync'
      ? html`<li>kind: <b>synchronous</b></li>
          <li>
            workers: <b>${verdict.workers}</b>
            (${
              verdict.waves ? html`first waves of bursts: ${verdict.waves.join(', ')}; ` : ''
            }closed loop flat up to ${verdict.latencyWorkers ?? verdict.workers}; Little's law:
            ${verdict.littleWorkers})
          </li>`
      : verdict.kind === 'async'
        ? html`<li>kind: <b>asynchronous</b></li>`
        : verdict.kind === 'sweeping'
          ? html`<li>kind: <b>not decided yet</b> (the sweep is going)</li>`
          : html`<li>kind: <b>inconclusive</b></li>`;
  const delay =
    verdict.delayMs !== undefined
      ? html`<li>delay: <b>${verdict.delayMs} ms</b> ± ${verdict.delayUncertaintyMs} ms</li>`
      : '';
  const h = heading === 'h3' ? 'h3' : 'h1';
  const title =
    h === 'h3' ? html`<h3>Characterization of ${target}</h3>` : html`<h1>Characterization of ${target}</h1>`;
  const body = html` ${title}
    <ul class="facts">
      ${facts}${delay}
    </ul>
    <p>${verdict.explanation}</p>
    ${chart}
    <h4>Sweep</h4>
    <table>
      <thead>
        <tr>
          <th>concurrency</th>
          <th>completed</th>
          <th>throughput /s</th>
          <th>min ms</th>
          <th>mean ms</th>
          <th>p95 ms</th>
          <th>max ms</th>
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
    <p class="note">
      Closed loop: each of the concurrent clients sends its next request as soon as the previous one is answered; each
      level is held for ${result.cycles} delays after a warm-up of one. Dashed lines: the fitted model.
    </p>`;
  return body;
}

function characterizeHtml(result) {
  return page(`Characterization of ${result.target}`, characterizeBody(result), result.machine);
}

const ms = (v) => (v === null || v === undefined ? '-' : Math.round(v));

module.exports = characterizeHtml;
module.exports.characterizeBody = characterizeBody;
