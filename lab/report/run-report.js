'use strict';

const { profileSection, profileCompared } = require('./profile-html');
const { tlsSection } = require('./tls-html');
const { elasticSection } = require('./elastic-html');
const { browserSection } = require('./browser-html');
const { lineChart } = require('./chart');
const { html, table } = require('./html');
const deploymentSvg = require('./deployment-svg');
const page = require('./page');
const { signalRows, SIGNAL_HEAD } = require('../results/signal-summary');

const markersOf = (run) => run.phases.map((p, i) => ({ x: p.x, label: `${i + 1}` }));

// The charts of one run (./chart.js): the four things the course's figures show, and more.
function runCharts(run) {
  const s = run.series;
  const m = markersOf(run);
  const nodeNames = Object.keys(s.cpu);
  const generator = run.summary.generator?.name || 'artillery';
  // One time axis for every chart of the run, so they line up.
  const xs = [...s.launched, ...s.completed, ...s.rtMax, ...Object.values(s.cpu).flat()].map((p) => p[0]);
  const axis = {
    xMin: Math.min(0, ...xs),
    xMax: Math.max(1, ...xs),
    xLabel: 'time since the first phase',
    time: true,
    markers: m,
    bands: run.failing || [],
  };
  const charts = [
    lineChart([{ name: 'scenarios launched /s', points: s.launched }], {
      ...axis,
      title: 'Scenarios launched per second',
      yLabel: 'per second',
    }),
    lineChart(
      [
        { name: 'completed /s', points: s.completed },
        // Artillery tells errors per 10 s interval only; the lab's generators per second.
        { name: generator === 'artillery' ? 'errored /s (per 10 s interval)' : 'errored /s', points: s.errored },
        { name: 'pending', points: s.pending, axis: 'right' },
      ],
      {
        ...axis,
        title: 'Requests: completed, errored and pending',
        yLabel: 'per second',
        y2Label: 'pending',
      },
    ),
    lineChart(
      [
        { name: 'client median', points: s.rtMedian },
        { name: 'client max', points: s.rtMax },
        { name: 'server median', points: s.srvMedian, dashed: true },
        { name: 'server max', points: s.srvMax, dashed: true },
      ],
      {
        ...axis,
        title: `Response time (ms): client side (the ${generator} generator) and server side (${run.serverSource || 'none measured'}), per second`,
        yLabel: 'ms',
      },
    ),
    lineChart(
      [
        { name: 'median', points: s.rtByRate?.p50 || [], scatter: true },
        { name: 'p99', points: s.rtByRate?.p99 || [], scatter: true },
      ],
      {
        title: "Response time against throughput: one dot a second (Gatling's view)",
        xLabel: 'requests completed in that second',
        yLabel: 'ms',
        xMin: 0,
      },
    ),
    lineChart(
      nodeNames.map((n) => ({ name: n, points: s.cpu[n] })),
      { ...axis, title: 'CPU per node (% of one core)', yLabel: '%' },
    ),
    lineChart(
      nodeNames.map((n) => ({ name: n, points: s.rss[n] })),
      { ...axis, title: 'Memory per node (RSS, MiB)', yLabel: 'MiB' },
    ),
    ...storeCharts(s.stores || {}, axis),
    ...runtimeCharts(s.runtime || {}, axis),
  ];
  return charts;
}

// The runtime probe's figures over time (lab/probe/): a chart each, a line per node.
const RUNTIME_CHARTS = [
  ['elu', 'Event-loop utilization per node (0 to 1: the share of each second its loops ran code)', 'utilization'],
  ['delayP99Ms', 'Event-loop delay per node: p99 of each second (ms beyond the timer)', 'ms'],
  ['gcMs', 'GC time per node (ms in each second, its processes summed)', 'ms'],
  ['heapUsedMiB', 'Heap used per node (MiB, its processes summed)', 'MiB'],
];
function runtimeCharts(runtime, axis) {
  const nodes = Object.keys(runtime).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!nodes.length) return [];
  return RUNTIME_CHARTS.map(([key, title, yLabel]) =>
    lineChart(
      nodes.map((n) => ({ name: n, points: runtime[n][key] || [] })),
      { ...axis, title, yLabel, ...(key === 'elu' ? { yMax: 1 } : {}) },
    ),
  );
}

// The data stores' own figures over time (--with): a chart per figure.
const STORE_CHARTS = {
  postgres: [
    ['tps', 'PostgreSQL: transactions per second', 'per second'],
    [
      'connections',
      'PostgreSQL: client connections (all, active, waiting on a lock)',
      'connections',
      ['active', 'waiting'],
    ],
    ['rowsReadPerS', 'PostgreSQL: rows read and written per second', 'per second', ['rowsWrittenPerS']],
    ['cacheHitRatio', 'PostgreSQL: cache hit ratio', 'ratio'],
  ],
  redis: [
    ['opsPerS', 'Redis: commands per second', 'per second'],
    ['clients', 'Redis: connected clients', 'clients'],
    ['memoryMiB', 'Redis: memory used (MiB)', 'MiB'],
  ],
};
function storeCharts(stores, axis) {
  const out = [];
  for (const [store, series] of Object.entries(stores)) {
    for (const [key, title, yLabel, more = []] of STORE_CHARTS[store] || []) {
      const lines = [key, ...more].filter((k) => series[k]).map((k) => ({ name: k, points: series[k] }));
      if (lines.length) out.push(lineChart(lines, { ...axis, title, yLabel }));
    }
  }
  return out;
}

// The stores' figures in a table (--with), beside the node table.
function storesTable(s) {
  const st = s.stores || {};
  const rows = [];
  const dash = (v) => v ?? '-';
  if (st.postgres) {
    const p = st.postgres;
    rows.push([
      'postgres',
      `${dash(p.tpsMean)} transactions/s (max ${dash(p.tpsMax)})`,
      `${dash(p.connectionsMax)} connections at most (${dash(p.activeMax)} active, ${dash(p.waitingMax)} waiting on a lock; ${dash(p.lockWaitsMax)} locks not granted)`,
      `${dash(p.rowsReadPerS)} rows read/s, ${dash(p.rowsWrittenPerS)} written/s, cache hit ratio ${dash(p.cacheHitRatio)}${p.refusedConnections ? `; ${p.refusedConnections} connection(s) refused (too many clients)` : ''}`,
    ]);
  }
  if (st.redis) {
    const r = st.redis;
    rows.push([
      'redis',
      `${dash(r.opsPerSMean)} commands/s (max ${dash(r.opsPerSMax)})`,
      `${dash(r.clientsMax)} clients at most`,
      `${dash(r.memoryMiBMax)} MiB used at most`,
    ]);
  }
  if (!rows.length) return '';
  return html`<h2>Data stores</h2>
    ${table(['store', 'throughput', 'connections', 'more'], rows)}
    <p class="note">
      From the stores themselves, read once a second: PostgreSQL's pg_stat_database and pg_stat_activity (the lab's
      own reading left out of the connections), Redis's INFO.
    </p>`;
}

// Each request of the scenario by name, with its own percentiles (never above its max).
function requestsTable(s) {
  const rows = s.requests || [];
  if (!rows.length) return '';
  const t = (r, k) => (r.responseTimeMs ? r.responseTimeMs[k] : '-');
  return html`<h2>Requests</h2>
    ${table(
      ['request', 'sent', 'answered', 'failed answers', 'errors', 'median ms', 'p95 ms', 'p99 ms', 'max ms', 'codes'],
      rows.map((r) => [
        r.name,
        r.launched,
        r.completed,
        r.failedAnswers ?? '-',
        Object.values(r.errors || {}).reduce((a, b) => a + b, 0),
        t(r, 'p50'),
        t(r, 'p95'),
        t(r, 'p99'),
        t(r, 'max'),
        Object.entries(r.codes || {})
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || '-',
      ]),
      'requests',
    )}`;
}

// Which replica answered, as the entry named it (X-Lab-Upstream): the spread over replicas.
function spreadTable(s) {
  const by = Object.entries(s.answeredBy || {});
  if (!by.length) return '';
  const total = by.reduce((a, [, v]) => a + v, 0);
  return html`<h2>Which replica answered</h2>
    ${table(
      ['replica (as the entry named it)', 'answers', 'share'],
      by.map(([k, v]) => [k, v, `${Math.round((v / total) * 1000) / 10}%`]),
    )}
    <p class="note">${s.upstreamNote}</p>`;
}

function summaryTable(rows) {
  const cols = [
    ['run', (r) => r.name],
    ['status', (r) => r.summary.status],
    ['launched', (r) => r.summary.scenariosLaunched],
    ['completed', (r) => r.summary.requestsCompleted],
    ['failed', (r) => r.summary.scenariosFailed],
    // Answers whose status counts as failed (400 or more unless --expect-status).
    ['failed answers', (r) => r.summary.answersFailed?.count ?? '-'],
    ['mean /s', (r) => r.summary.meanResponseRate ?? '-'],
    ['median ms', (r) => rt(r, 'median')],
    ['p95 ms', (r) => rt(r, 'p95')],
    ['p99 ms', (r) => rt(r, 'p99')],
    ['max ms', (r) => rt(r, 'max')],
    [
      'errors',
      (r) =>
        Object.entries(r.summary.errors)
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ') || '-',
    ],
  ];
  return table(
    cols.map(([h]) => h),
    rows.map((r) => cols.map(([, f]) => f(r))),
    'summary',
  );
}

const rt = (r, k) => (r.summary.responseTimeMs ? r.summary.responseTimeMs[k] : '-');

// The per-node table like `docker stats` when the run has one, else the peaks of each node.
function nodesTable(run) {
  const n = run.summary.nodes;
  if (!n || !Array.isArray(n.rows) || !n.rows.length) return peaksTable(run);
  const capped = n.rows.some((r) => r.cpuCapPct != null || r.memLimitMiB != null);
  const edges = n.rows.some((r) => r.requests != null);
  const restarted = n.rows.some((r) => r.restarts > 0);
  const head = ['node', 'CPU % mean', 'CPU % max', 'memory max MiB', 'limit MiB', 'memory % of limit', 'PIDs'];
  if (capped)
    head.push(
      'CPU cap %',
      'CFS period ms',
      'CPU % by its cgroup',
      'periods throttled %',
      'throttled ms',
      'group memory peak MiB',
      'OOM kills',
    );
  if (edges) head.push('requests', 'cache hit ratio');
  if (restarted) head.push('restarts');
  const probed = n.rows.some((r) => r.eventLoopUtilization !== undefined);
  if (probed) head.push('event loop busy', 'loop delay p99 ms', 'GC ms', 'heap max MiB');
  head.push('net in / out');
  const dash = (v) => v ?? '-';
  return html`${table(
    head,
    n.rows.map((r) => [
      r.node,
      r.cpuPctMean,
      r.cpuPctMax,
      r.memMiBMax,
      dash(r.memLimitMiB),
      dash(r.memPctOfLimit),
      r.pidsMax,
      ...(capped
        ? [
            dash(r.cpuCapPct),
            dash(r.periodMs),
            dash(r.cgroupCpuPct),
            dash(r.throttledPct),
            dash(r.throttledMs),
            dash(r.groupMemMiBMax),
            dash(r.oomKills),
          ]
        : []),
      ...(edges ? [dash(r.requests), r.hitRatio == null ? '-' : `${Math.round(r.hitRatio * 1000) / 10}%`] : []),
      ...(restarted ? [dash(r.restarts)] : []),
      ...(probed
        ? [
            r.eventLoopUtilization == null ? '-' : `${Math.round(r.eventLoopUtilization * 100)}%`,
            dash(r.eventLoopDelayP99Ms),
            dash(r.gcPauseMs),
            dash(r.heapUsedMiBMax),
          ]
        : []),
      r.netInBytes === null ? 'not measured' : `${r.netInBytes} / ${r.netOutBytes}`,
    ]),
  )}
    ${processesTable(n)}
    ${n.rows
      .filter((r) => r.oomKills > 0)
      .map(
        (r) =>
          html`<p class="warn">${r.node} hit its memory cap: the kernel OOM-killed ${r.oomKills} of its processes.</p>`,
      )}
    <p class="note">
      ${n.note}${
        capped
          ? "; periods throttled: the share of the run's CFS periods in which the node spent its quota and waited (cpu.stat); the memory % of a limit is from the group's own peak where the kernel gives it, else from RSS summed over the node's processes"
          : ''
      }
    </p>`;
}

// Every process of the nodes that have several (a replica's workers and its primary): the
// requests each answered beside its loop, GC and heap, from the runtime probe (lab/probe/).
function processesTable(n) {
  const procs = n.processes || [];
  const several = new Set(procs.map((p) => p.node).filter((node, i, all) => all.indexOf(node) !== i));
  const rows = procs.filter((p) => several.has(p.node));
  const note = n.runtimeNote ? html`<p class="note">${n.runtimeNote}</p>` : '';
  if (!rows.length) return note;
  const dash = (v) => v ?? '-';
  return html`<h3>Processes</h3>
    ${table(
      [
        'node',
        'process',
        'pid',
        'requests',
        'CPU % mean',
        'event loop busy',
        'loop delay p99 ms',
        'loop delay max ms',
        'GC ms',
        'heap max MiB',
      ],
      rows.map((p) => [
        p.node,
        p.role === 'worker' ? `worker ${p.worker}` : p.role,
        p.pid,
        p.requests,
        dash(p.cpuPctMean),
        p.eventLoopUtilization == null ? '-' : `${Math.round(p.eventLoopUtilization * 100)}%`,
        dash(p.eventLoopDelayP99Ms),
        dash(p.eventLoopDelayMaxMs),
        p.gcPauseMs,
        p.heapUsedMiBMax,
      ]),
    )}
    <p class="note">
      From the runtime probe preloaded into each Node process (docs/runtime.md): the share of the run its event loop
      ran code, how late its timer ran (p99 over the run, from merged histograms), the time its garbage collections
      took, its largest heap. A primary only forks and passes connections on: its loop is left out of its node's.
    </p>
    ${note}`;
}

function peaksTable(run) {
  return table(
    ['node', 'peak CPU %', 'peak RSS MiB'],
    Object.entries(run.peaks).map(([n, p]) => [n, p.cpuPct, p.rssMiB]),
  );
}

function phasesTable(run) {
  return table(
    ['phase', 'starts at s', 's', 'target /s', 'achieved /s', 'send lag p99 ms', 'generator CPU %'],
    run.phases.map((p, i) => [
      `${i + 1}. ${p.name}`,
      p.x,
      p.durationS,
      p.targetRate?.mean ?? '-',
      p.achievedRate ?? '-',
      p.sendLagP99Ms ?? '-',
      p.generatorCpuPctMean ?? '-',
    ]),
  );
}

function sourcesList(summary) {
  const src = summary.monitoring || {};
  const items = Object.entries(src).map(([n, s]) =>
    s.ok ? html`<li>${n}: ${s.what}</li>` : html`<li class="missing"><b>${n}: missing</b> (${s.reason})</li>`,
  );
  return html`<ul class="sources">
    ${items}
  </ul>`;
}

// Which generator measured, how precisely, and at what CPU cost.
function generatorLine(s) {
  const g = s.generator;
  if (!g || !g.name) return '';
  const threads = g.workers > 1 ? html` (${g.workers} threads)` : '';
  const cost =
    g.cpuMsPerRequest !== null && g.cpuMsPerRequest !== undefined
      ? html`; ${g.cpuMsPerRequest} ms of its CPU per request`
      : '';
  const lag = s.sendLagMs
    ? html` Send lag (actual - due): median ${s.sendLagMs.p50} ms, p99 ${s.sendLagMs.p99} ms, max ${s.sendLagMs.max} ms.`
    : '';
  // (The lab's engine only: every time it measured includes reading its answer this late.)
  const late = g.loopLateMs
    ? html` Its own event loop ran late by ${g.loopLateMs.p50} ms at the median, ${g.loopLateMs.p99} ms at p99: every latency it measured includes that.`
    : '';
  return html`<p class="note">
      Load generator: <b>${g.name}</b>${threads}, ${g.loop ?? 'open'} loop${g.connectionsText ? `, ${g.connectionsText}` : ''}; latencies in
      ${g.latencyPrecision ?? 'as it measured them'}${cost}.${lag}${late}
    </p>
    ${loadNodesTable(g)}`;
}

// A generator spread over load nodes: one row per node, its clock as measured at start.
function loadNodesTable(g) {
  if (!g.nodes || !g.nodes.length) return '';
  return html`<h2>Load nodes</h2>
    ${table(
      [
        'node',
        'clock offset ms',
        'round trip ms',
        'threads',
        'launched',
        'p99 ms',
        'send lag p99 ms',
        'CPU mean %',
        'CPU max %',
        '',
      ],
      g.nodes.map((n) => [
        n.node,
        n.clockOffsetMs,
        n.rttMs,
        n.workers,
        n.launched,
        n.latencyMs?.p99 ?? '-',
        n.sendLagMs?.p99 ?? '-',
        n.cpuPctMean ?? '-',
        n.cpuPctMax ?? '-',
        n.lost ? 'lost before its end' : '',
      ]),
    )}
    <p class="note">${g.nodesNote || ''}</p>`;
}

// The run's --ensure conditions with what was measured.
function thresholdsTable(s) {
  if (!Array.isArray(s.thresholds) || !s.thresholds.length) return '';
  return table(
    ['threshold', 'measured', ''],
    s.thresholds.map((t) => [t.text, `${t.value ?? '-'}${t.value !== null ? t.unit : ''}`, t.ok ? 'pass' : 'FAIL']),
  );
}

function renderRunReport(run) {
  const s = run.summary;
  const dep = s.deployment ? s.deployment.label || s.deployment.name : 'external target';
  const machine = s.machine && { ...s.machine, serviceNode: s.nodes?.nodeVersions };
  return page(`${s.endpoint} ${s.scenario} on ${dep}`, runBody(run), machine);
}

// The report's body: what the page shows, and what the live dashboard shows second by second.
function runBody(run) {
  const s = run.summary;
  const dep = s.deployment ? s.deployment.label || s.deployment.name : 'external target';
  const warn =
    s.saturation && (s.saturation.saturated || /peaked/.test(s.saturation.verdict))
      ? html`<p class="warn">${s.saturation.verdict}</p>`
      : html`<p>${s.saturation ? s.saturation.verdict : ''}</p>`;
  const body = html` <h1>${s.endpoint} ${s.scenario} on ${dep}</h1>
    <p>${s.status}, ${s.startedAt}${s.durationS ? html`, ${s.durationS} s` : ''}. Target ${s.target}.</p>
    ${s.environment?.emulated ? html`<p class="warn">Note: ${s.environment.emulated}.</p>` : ''} ${warn}
    ${(s.outages || []).map(
      (o) =>
        html`<p class="warn">Failing from ${o.fromS} s to ${o.toS} s into the run (${o.seconds} s): ${o.failed} request(s) failed.</p>`,
    )}
    ${
      s.failedShare > 0.5
        ? html`<p class="warn">Most answers failed: ${Math.round(s.failedShare * 1000) / 10}% of the requests launched
          (statuses expected: ${s.expectStatus}).</p>`
        : ''
    }
    ${(s.findings || []).map((f) => html`<p class="warn" title="${f.rule}">${f.text}</p>`)}
    ${generatorLine(s)} ${thresholdsTable(s)} ${summaryTable([run])} ${requestsTable(s)} ${spreadTable(s)}
    ${
      s.signal
        ? html`<h2>Signaling (like seed 002's k6 table)</h2>
            ${table(SIGNAL_HEAD, signalRows(s.signal))}
            <p class="note">
              ${s.signal.note}; rooms of ${s.signal.room.size}, an update every ${s.signal.room.updateEveryS} s.
            </p>`
        : ''
    }
    ${tlsSection(s)} ${elasticSection(run)} ${browserSection(s)}
    <h2>Over time</h2>
    <p class="note">
      Dashed vertical lines: phase boundaries (numbers as in the phase table). Per-second figures each come from that
      second's own measurements; errors are known per 10 s interval.
    </p>
    ${runCharts(run).map((c) => html`${c} `)}
    <h2>Phases</h2>
    ${phasesTable(run)}
    <p class="note">${s.phaseRateNote || ''}</p>
    <h2>Deployment</h2>
    ${deploymentSvg(s.deployment ? { ...s.deployment } : null)} ${nodesTable(run)} ${storesTable(s)}
    ${profileSection(run)}
    <h2>Sources</h2>
    ${sourcesList(s)}
    <p class="note">${s.responseTimeNote || ''}</p>`;
  return body;
}

// Several runs side by side: one chart per panel with a series per run, on shared axes,
// then the table. The body is shared by `npm run compare` and the study report.
function compareBody(runs) {
  const panel = (title, pick, yLabel) =>
    lineChart(
      runs.map((r) => ({ name: label(r), points: pick(r) })),
      { title, xLabel: 'time since the first phase', time: true, yLabel, xMin: 0 },
    );
  const totalOf = (series, r) => {
    // The deployment's total: top-level nodes only (a replica's tree already holds its
    // workers), without the load generator.
    const names = Object.keys(r.series[series]).filter((n) => !n.includes('.') && n !== 'generator');
    const at = new Map();
    for (const n of names)
      for (const [t, v] of r.series[series][n]) at.set(Math.round(t), (at.get(Math.round(t)) || 0) + v);
    return [...at].sort((a, b) => a[0] - b[0]);
  };
  return html` ${summaryTable(runs)} ${requestsCompared(runs)} ${peaksSummary(runs)} ${profileCompared(runs, label)}
  ${panel('Scenarios launched per second', (r) => r.series.launched, 'per second')}
  ${panel('Requests completed per second', (r) => r.series.completed, 'per second')}
  ${panel('Pending requests', (r) => r.series.pending, 'pending')}
  ${panel('Client median response time (ms)', (r) => r.series.rtMedian, 'ms')}
  ${panel('Client max response time (ms)', (r) => r.series.rtMax, 'ms')}
  ${lineChart(
    runs.map((r) => ({ name: label(r), points: r.series.rtByRate?.p99 || [], scatter: true })),
    {
      title: "p99 response time against throughput: one dot a second (Gatling's view)",
      xLabel: 'requests completed in that second',
      yLabel: 'ms',
      xMin: 0,
    },
  )}
  ${panel('Deployment CPU, all nodes (% of one core)', (r) => totalOf('cpu', r), '%')}
  ${panel('Deployment memory, all nodes (MiB)', (r) => totalOf('rss', r), 'MiB')}`;
}

// Each request name's p99 in every run, side by side, when the runs had several names.
function requestsCompared(runs) {
  const names = [...new Set(runs.flatMap((r) => (r.summary.requests || []).map((q) => q.name)))];
  if (names.length < 2) return '';
  const cell = (r, n) => {
    const q = (r.summary.requests || []).find((x) => x.name === n);
    return q && q.responseTimeMs ? `${q.responseTimeMs.p99} ms (${q.completed})` : '-';
  };
  return html`<h2>Requests: p99 (answers) by name</h2>
    ${table(
      ['request', ...runs.map(label)],
      names.map((n) => [n, ...runs.map((r) => cell(r, n))]),
    )}`;
}

// Peak CPU and memory of every node, one row per run.
function peaksSummary(runs) {
  const cells = (r) =>
    Object.entries(r.peaks)
      .filter(([n]) => !n.includes('.'))
      .map(([n, p]) => `${n} ${p.cpuPct}% / ${p.rssMiB} MiB`)
      .join('; ');
  return table(
    ['run', 'peak CPU (% of a core) / peak RSS per node'],
    runs.map((r) => [label(r), cells(r)]),
  );
}

function renderCompare(runs) {
  return page(
    `Comparison of ${runs.length} runs`,
    html`<h1>Comparison of ${runs.length} runs</h1>
      ${compareBody(runs)}`,
    runs[0] && runs[0].summary.machine,
  );
}

const label = (r) =>
  `${r.summary.endpoint} ${r.summary.scenario} ${r.summary.deployment ? r.summary.deployment.label || r.summary.deployment.name : 'external'}`;

module.exports = { renderRunReport, runBody, renderCompare, compareBody, runCharts, label };
