'use strict';

const { html, table } = require('./html');
const page = require('./page');
const { lineChart } = require('./chart');
const { scalingText } = require('./scaling-text');
const { restartText } = require('../runtime/pm2-restarts');
const { clock } = require('../terminal/progress');

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
  // (The search's own levels: the verification's runs are longer, at the rates it found.)
  r = { ...r, levels: r.levels.filter((l) => !l.role) };
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

// The busiest replica's event loop at each level, against the rate asked (the runtime probe):
// utilization climbing to 1 as the latency curve bends, or staying low while it bends (the
// service waits on something else).
function loopChart(r) {
  r = { ...r, levels: r.levels.filter((l) => !l.role) };
  const deployments = [...new Set(r.levels.filter((l) => l.loops?.length).map((l) => l.deployment))];
  if (!deployments.length) return '';
  const series = [];
  for (const d of deployments) {
    const levels = r.levels.filter((l) => l.deployment === d && l.loops?.length).sort((a, b) => a.rate - b.rate);
    const busiest = (l) =>
      l.loops.reduce((a, x) => ((x.eventLoopUtilization ?? 0) > (a.eventLoopUtilization ?? 0) ? x : a));
    series.push(
      { name: `${d} loop busy`, points: levels.map((l) => [l.rate, busiest(l).eventLoopUtilization]) },
      {
        name: `${d} loop delay p99 ms`,
        points: levels.map((l) => [l.rate, busiest(l).eventLoopDelayP99Ms]),
        axis: 'right',
        dashed: true,
      },
    );
  }
  return lineChart(series, {
    title: "The busiest replica's event loop against the arrival rate asked (utilization 0 to 1; its delay's p99)",
    xLabel: 'arrivals a second asked',
    yLabel: 'utilization',
    y2Label: 'ms',
    xMin: 0,
    yMax: 1,
  });
}

// How capacity grows with replicas (--replicas): the measured points, the law's curve with
// its 95% band, the ideal line (one replica's rate times N), the predicted point and the
// measurement that checked it; the peak and the answer to --need marked.
function scalingChart(sc) {
  if (!sc) return '';
  const good = sc.points.filter((x) => !x.leftOut && x.maxRate !== null);
  const out = sc.points.filter((x) => x.leftOut && x.maxRate !== null);
  const series = [{ name: 'measured', points: good.map((x) => [x.replicas, x.maxRate]), scatter: true }];
  if (out.length)
    series.push({ name: 'left out of the fit', points: out.map((x) => [x.replicas, x.maxRate]), scatter: true });
  if (sc.curve) {
    series.push(
      { name: 'the law, fitted', points: sc.curve.map((c) => [c.replicas, c.rate]) },
      {
        name: '95% band (low)',
        points: sc.curve.filter((c) => c.low !== null).map((c) => [c.replicas, c.low]),
        dashed: true,
      },
      {
        name: '95% band (high)',
        points: sc.curve.filter((c) => c.high !== null).map((c) => [c.replicas, c.high]),
        dashed: true,
      },
      {
        name: 'linear (one replica x N)',
        points: sc.curve.map((c) => [c.replicas, c.replicas * sc.linear]),
        dashed: true,
      },
    );
  }
  if (sc.prediction)
    series.push({ name: 'predicted', points: [[sc.prediction.replicas, sc.prediction.rate]], scatter: true });
  if (sc.measured?.maxRate != null)
    series.push({
      name: sc.prediction ? 'measured to check it' : 'measured after the sweep',
      points: [[sc.measured.replicas, sc.measured.maxRate]],
      scatter: true,
    });
  const markers = [];
  if (sc.fit?.peak) markers.push({ x: sc.fit.peak.replicas, label: `peak N*=${sc.fit.peak.replicas}` });
  if (sc.need?.replicas) markers.push({ x: sc.need.replicas, label: `${sc.need.rate}/s: ${sc.need.replicas}` });
  return lineChart(series, {
    title: `What ${sc.deployment} holds with N replicas (arrivals a second under the SLO)`,
    xLabel: 'replicas',
    yLabel: 'arrivals a second',
    xMin: 0,
    markers,
  });
}

function scalingSection(sc) {
  if (!sc) return '';
  return html`<h2>How many replicas</h2>
    <pre>${scalingText(sc)}</pre>
    ${scalingChart(sc)}
    <p class="note">
      The Universal Scalability Law, X(N) = λN / (1 + σ(N−1) + κN(N−1)), fitted by least squares to the capacities
      measured (docs/scaling.md): λ one replica's rate, σ the contention (work waiting in line for something shared), κ
      the coherency cost (replicas paying for each other: past the peak N*, more replicas hold less). A point the
      generator, this machine or the entry limited is left out. The band is 95% for a new measurement.
    </p>`;
}

function rows(r) {
  return (r.deployments || []).map((d) => [
    d.label,
    d.maxRate === null
      ? d.bound === 'stop-below'
        ? `under ${d.below}/s (--stop-below ${d.stopBelow})`
        : 'none'
      : `${d.atLeast ? 'at least ' : ''}${d.maxRate}/s${d.unit === 'scenarios' ? ` scenarios (${d.requestsPerS ?? '-'} req/s)` : ''}`,
    d.verified
      ? `${d.verified.ok ? 'held' : 'broke'} at ${d.verified.rate}/s for ${d.verified.holdS} s${d.verified.tries > 1 ? ` (try ${d.verified.tries})` : ''}: ${d.verified.held} of ${d.verified.runs} runs on their own`
      : '-',
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
  'verified (held for)',
  'broke at',
  'p50 ms at max',
  'p99 ms at max',
  'CPU ms a request',
  'by tier (ms)',
  'memory MiB',
  'answers/s per core',
];

// How the search went, in words: its steps, what happened between levels, its verification.
function method(r) {
  const st = r.settings;
  const between = st.freshPerLevel
    ? 'a fresh deployment before every level and verification run (--fresh-per-level)'
    : `after a level that broke, a light probe until the service answered as before the search (at most ${st.recoveryWaitS ?? '-'} s), and the last level that held measured again before bisecting`;
  const verifyHold = st.verifyHoldS ? `each held for ${st.verifyHoldS} s` : 'each held twice as long as a level';
  return `Under ${r.slos.join(' and ')}. Steps from ${st.start}/s doubling (halving to ${st.floor ?? '-'}/s when the first level broke), then bisection to within ${st.precision * 100}%; each level measured after ${st.warmupS} s of warm-up; between levels, ${between}; ${st.repetitions} verification run(s) at the rate found, ${verifyHold}, judged pooled, stepped down in growing steps until one held. A capacity is the rate the verification held, for the time it held it${st.maxLevels ? `; each search had at most ${st.maxLevels} levels and ${st.timeLimitS} s` : ''}.`;
}

// Per deployment, how it recovered from each overload (the probes of lab/capacity/recovery.js).
function recoveryRows(r) {
  return (r.deployments || []).flatMap((d) =>
    (d.recoveries || []).map((x) => [d.deployment, `${x.after}/s`, x.ok ? 'yes' : 'no', x.waitedS ?? '-', x.text]),
  );
}

// --profile: what each deployment's processes and stores spent their time on at its knee
// (the last level that held, the first that broke), side by side. That is where single and
// replicated differ: the service's own code in one, the shared database in the other.
const share = (v) => `${Math.round(v * 1000) / 10}%`;
function kneeCells(k) {
  if (!k) return ['-', '-'];
  const fns = Object.entries(k.nodes || {}).map(
    ([n, x]) =>
      `${n}: ${
        x.top
          .slice(0, 3)
          .map((f) => `${f.name} ${share(f.selfShare)}`)
          .join(', ') || '-'
      }`,
  );
  const stmts = [
    ...(k.statements || [])
      .slice(0, 2)
      .map((q) => `${share(q.share)} ${q.query.slice(0, 80)} (${q.calls} calls, ${q.meanMs} ms)`),
    ...(k.commands || []).slice(0, 2).map((c) => `${share(c.share)} ${c.command.toUpperCase()} (${c.calls} calls)`),
  ];
  return [fns.join('; ') || '-', stmts.join('; ') || '-'];
}
function kneeRows(r) {
  return (r.deployments || [])
    .filter((d) => d.knee)
    .flatMap((d) =>
      ['held', 'broke']
        .filter((w) => d.knee[w])
        .map((w) => [
          d.deployment,
          `${d.knee[w].rate}/s (${w === 'held' ? 'held' : 'broke'})`,
          ...kneeCells(d.knee[w]),
        ]),
    );
}
function kneeSection(r) {
  const rows = kneeRows(r);
  if (!rows.length) return '';
  return html`<h2>At the knee: where the time went (--profile)</h2>
    ${table(['deployment', 'level', 'processes: hottest functions by self time', 'stores: heaviest statements'], rows, 'knee')}
    <p class="note">Each level's own report has the whole profile, a flame graph per node, and every statement.</p>`;
}

// A row's name in a sentence: its deployment, and its Node when --node searched several.
const rowName = (d) => `${d.deployment}${d.node ? ` on Node ${d.node.version}` : ''}`;

function capacityHttpBody(r) {
  const notes = (r.deployments || []).filter((d) => d.maxRate === null || d.atLeast || d.moves);
  const recoveries = recoveryRows(r);
  return html`<h1>What each deployment can take: ${r.what}${r.app ? html` (your service ${r.app})` : ''}</h1>
    <p>${method(r)}</p>
    ${r.status && r.status !== 'completed' ? html`<p class="warn"><b>${statusText(r)}</b></p>` : ''}
    ${r.machineLimit ? html`<p class="warn"><b>${r.machineLimit.text}</b>.</p>` : ''}
    ${r.cpuSpeedsText ? html`<p class="warn cpu-speeds">${r.cpuSpeedsText}.</p>` : ''}
    ${r.notRanked ? html`<p class="warn"><b>${r.notRanked}</b>.</p>` : ''}
    ${r.best ? html`<p><b>${r.best.text}</b>.</p>` : ''}
    ${notes.map((d) => html`<p class="warn">${rowName(d)}: ${d.text}.</p>`)}
    ${(r.nodeDifference || []).map((x) => html`<p class="node-difference"><b>${x.text}</b>.</p>`)}
    ${table(HEAD, rows(r), 'capacity')}
    ${
      recoveries.length
        ? html`<h2>Recovery after each overload</h2>
          ${table(['deployment', 'after', 'recovered', 'waited s', 'the probes'], recoveries)}`
        : ''
    }
    ${kneeSection(r)} ${scalingSection(r.scaling)} ${chart(r)} ${loopChart(r)}
    <h2>Every level</h2>
    ${table(
      [
        'deployment',
        'level',
        'rate asked /s',
        'answered /s',
        'p50 ms',
        'p99 ms',
        'errors %',
        'held',
        'machine busy',
        'loop busy (busiest replica)',
        'measured s',
      ],
      r.levels.map((l) => [
        l.deployment,
        levelRole(l),
        l.rate,
        l.answeredPerS,
        l.latencyMs?.p50 ?? '-',
        l.latencyMs?.p99 ?? '-',
        l.errorsPct ?? '-',
        l.failed
          ? `could not run: ${l.failed}`
          : l.restarts
            ? `no: ${restartText(l.restarts)}`
            : l.generatorBound
              ? 'the generator was the limit'
              : l.ok
                ? 'yes'
                : 'no',
        l.machineShare === null ? '-' : `${Math.round(l.machineShare * 100)}%`,
        l.loops?.length ? `${Math.round(Math.max(...l.loops.map((x) => x.eventLoopUtilization ?? 0)) * 100)}%` : '-',
        l.holdS,
      ]),
    )}
    <p class="note">
      CPU a request: every node's CPU (the generator's left out) over the answers, at the last verification run; the
      machine's busy share counts the generator's CPU too. Percentiles come from each level's own histograms, never
      averaged.
    </p>`;
}

// What a level was for: a step of the search, a verification run, the rate held measured
// again (./capacity/verify.js), and when it started after its deployment came up.
const ROLES = { verification: 'verification', again: 'measured again' };
function levelRole(l) {
  const at = Number.isFinite(l.atS) && l.atS >= 0 ? ` at ${clock(l.atS)}` : '';
  return `${ROLES[l.role] ?? 'search'}${at}`;
}

// A search that has not ended (its files are written after every level), or was cut short.
function statusText(r) {
  if (r.status === 'searching')
    return `The search is still running${r.searching ? ` (${r.searching})` : ''}: these are the figures so far.`;
  return `The search was ${r.status === 'interrupted' ? 'interrupted' : 'cut short by a failure'}${r.searching ? ` during ${r.searching}` : ''}: these are the figures measured before it.`;
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
  // Every deployment's answer in a sentence: the rate and how long it held, or why there is none.
  const notes = (r.deployments || []).map((d) => `${rowName(d)}: ${d.text}`);
  const said = [
    r.status && r.status !== 'completed' ? statusText(r) : null,
    r.machineLimit?.text,
    r.cpuSpeedsText,
    r.notRanked,
    r.best?.text,
    ...(r.nodeDifference || []).map((x) => x.text),
  ].filter(Boolean);
  return [
    `Capacity of ${r.what} under ${r.slos.join(' and ')}`,
    '',
    ...all.map(line),
    '',
    ...notes,
    ...said,
    ...kneeText(r),
  ]
    .join('\n')
    .trim();
}

function kneeText(r) {
  const rows = kneeRows(r);
  if (!rows.length) return [];
  return [
    '',
    'At the knee (--profile):',
    ...rows.map(([d, level, fns, stmts]) => `  ${d} at ${level}: ${fns}${stmts !== '-' ? `; ${stmts}` : ''}`),
  ];
}

// One level's line in the log.
function levelText(l) {
  if (l.failed) return `${l.rate}/s: could not run: ${l.failed}`;
  const broke = [
    ...(l.thresholds || []).filter((t) => !t.ok).map((t) => t.text),
    ...(l.restarts ? [restartText(l.restarts)] : []),
  ].join(', ');
  const verdict = l.generatorBound ? 'the generator was the limit' : l.ok ? 'held' : `broke ${broke}`;
  return `${l.rate}/s${l.recheck ? ' again (the top of the bracket: the lowest rate that broke above the one held, --recheck)' : ''}${l.resumed ? ' (measured before)' : ''} -> ${l.answeredPerS}/s answered, p99 ${l.latencyMs?.p99 ?? '-'} ms, errors ${l.errorsPct ?? '-'}%: ${verdict}`;
}

module.exports = { capacityHttpPage, capacityHttpBody, capacityText, levelText };
