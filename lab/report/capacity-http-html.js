'use strict';

const { html, table } = require('./html');
const page = require('./page');
const { lineChart } = require('./chart');

// An HTTP capacity search's results (capacity.json, lab/capacity/) as a page and as text:
// pure functions of that file. The live dashboard (capacity --dashboard) draws the same body
// from the levels measured so far.

const latencySlos = (r) =>
  (r.slos || [])
    .map((t) => /^(p\d+|max|mean)(\{[^}]*\})?\s*<=?\s*(\d+(?:\.\d+)?)$/.exec(t))
    .filter(Boolean)
    .map((m) => ({ text: m[0], metric: m[1], name: m[2], limit: Number(m[3]) }));

// p99 (and p50) against the rate asked, per deployment; the SLO's line and each deployment's
// knee (the rate found) marked.
function chart(r) {
  const deployments = [...new Set(r.levels.map((l) => l.deployment))];
  const series = [];
  for (const d of deployments) {
    const pts = (k) =>
      r.levels
        .filter((l) => l.deployment === d && l.latencyMs?.[k] != null)
        .sort((a, b) => a.rate - b.rate)
        .map((l) => [l.rate, l.latencyMs[k]]);
    series.push({ name: `${d} p99`, points: pts('p99') }, { name: `${d} p50`, points: pts('p50'), dashed: true });
  }
  const rates = r.levels.map((l) => l.rate);
  const lo = Math.min(0, ...rates);
  const hi = Math.max(1, ...rates);
  for (const s of latencySlos(r).filter((x) => !x.name)) {
    series.push({
      name: `SLO ${s.text}`,
      points: [
        [lo, s.limit],
        [hi, s.limit],
      ],
      dashed: true,
    });
  }
  const markers = (r.deployments || [])
    .filter((d) => d.maxRate !== null)
    .map((d) => ({ x: d.maxRate, label: `${d.deployment} ${d.atLeast ? '>=' : ''}${d.maxRate}/s` }));
  return lineChart(series, {
    title: 'Latency against the arrival rate asked (ms), each level measured after its warm-up',
    xLabel: 'arrivals a second asked',
    yLabel: 'ms',
    xMin: 0,
    markers,
  });
}

function rows(r) {
  return (r.deployments || []).map((d) => [
    d.label,
    d.maxRate === null ? 'none' : `${d.atLeast ? 'at least ' : ''}${d.maxRate}/s`,
    d.verified ? `${d.verified.held} of ${d.verified.runs} at ${d.verified.rate}/s (${d.verified.holdS} s each)` : '-',
    d.broke
      ? `${d.broke.rate}/s: ${d.broke.failed ? d.broke.failed.join(', ') : ''} (p99 ${d.broke.p99 ?? '-'} ms, errors ${d.broke.errorsPct ?? '-'}%)`
      : '-',
    d.p50 ?? '-',
    d.p99 ?? '-',
    d.cpuMsPerRequest ?? '-',
    d.cpuMsPerRequestByTier
      ? Object.entries(d.cpuMsPerRequestByTier)
          .map(([t, v]) => `${t} ${v}`)
          .join(', ')
      : '-',
    d.memoryMiB ?? '-',
    d.perCore ?? '-',
  ]);
}
const HEAD = [
  'deployment',
  'capacity',
  'verified (held)',
  'broke at',
  'p50 ms at max',
  'p99 ms at max',
  'CPU ms a request',
  'by tier (ms)',
  'memory MiB',
  'answers/s per core',
];

function capacityHttpBody(r) {
  const notes = (r.deployments || []).filter((d) => d.maxRate === null || d.atLeast);
  return html`<h1>What each deployment can take: ${r.what}${r.app ? html` (your service ${r.app})` : ''}</h1>
    <p>
      Under ${r.slos.join(' and ')}. Steps from ${r.settings.start}/s doubling, then bisection to within
      ${r.settings.precision * 100}%; each level measured after ${r.settings.warmupS} s of warm-up; ${r.settings.repetitions}
      verification runs at the rate found, twice as long.
    </p>
    ${r.best ? html`<p><b>${r.best.text}</b>.</p>` : ''}
    ${notes.map((d) => html`<p class="warn">${d.deployment}: ${d.text}.</p>`)}
    ${table(HEAD, rows(r), 'capacity')} ${chart(r)}
    <h2>Every level</h2>
    ${table(
      [
        'deployment',
        'rate asked /s',
        'answered /s',
        'p50 ms',
        'p99 ms',
        'errors %',
        'held',
        'machine busy',
        'measured s',
      ],
      r.levels.map((l) => [
        l.deployment,
        l.rate,
        l.answeredPerS,
        l.latencyMs?.p50 ?? '-',
        l.latencyMs?.p99 ?? '-',
        l.errorsPct ?? '-',
        l.generatorBound ? 'the generator was the limit' : l.ok ? 'yes' : 'no',
        l.machineShare === null ? '-' : `${Math.round(l.machineShare * 100)}%`,
        l.holdS,
      ]),
    )}
    <p class="note">
      CPU a request: every node's CPU (the generator's left out) over the answers, at the last verification run; the
      machine's busy share counts the generator's CPU too. Percentiles come from each level's own histograms, never
      averaged.
    </p>`;
}

function capacityHttpPage(r) {
  return page(`capacity of ${r.what}`, capacityHttpBody(r), r.machine);
}

// The terminal's table.
function capacityText(r) {
  const all = [HEAD, ...rows(r).map((row) => row.map(String))];
  const keep = [0, 1, 2, 3, 5, 6, 9];
  const w = keep.map((i) => Math.max(...all.map((row) => row[i].length)));
  const line = (row) =>
    keep
      .map((i, k) => row[i].padEnd(w[k]))
      .join('  ')
      .trimEnd();
  const notes = (r.deployments || [])
    .filter((d) => d.maxRate === null || d.atLeast)
    .map((d) => `${d.deployment}: ${d.text}`);
  return [
    `Capacity of ${r.what} under ${r.slos.join(' and ')}`,
    '',
    ...all.map(line),
    '',
    ...notes,
    r.best ? r.best.text : '',
  ]
    .join('\n')
    .trim();
}

module.exports = { capacityHttpPage, capacityHttpBody, capacityText };
