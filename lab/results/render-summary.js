'use strict';

const { profileLines } = require('./render-profile');

const { signalRows, SIGNAL_HEAD } = require('./signal-summary');
// The final summary as text, laid out like Artillery's report in the course. A pure
// function of summary.json.
const LATENCY_KEYS = ['min', 'median', 'p75', 'p90', 'p95', 'p99', 'max', 'mean'];

// The request-side figures of an HTTP run, laid out as Artillery's report.
function httpFigures(s, lines) {
  lines.push(`Scenarios launched:  ${s.scenariosLaunched}`);
  lines.push(`Scenarios completed: ${s.scenariosCompleted}`);
  if (s.scenariosSkipped) lines.push(`Scenarios skipped:   ${s.scenariosSkipped} (a phase's maxVusers)`);
  lines.push(`Requests completed:  ${s.requestsCompleted}`);
  lines.push(`Mean response/sec:   ${s.meanResponseRate ?? '-'}`);
  if (s.responseTimeMs) {
    const r = s.responseTimeMs;
    lines.push(`Response time (msec, ${s.generator?.latencyPrecision ?? 'as measured'}):`);
    for (const k of LATENCY_KEYS)
      if (r[k] !== undefined && r[k] !== null) lines.push(`  ${k === 'p50' ? 'median' : k}: ${r[k]}`);
  } else {
    lines.push(`Response time: ${s.responseTimeNote}`);
  }
  // Each request of the flow by name, when there are several (one is the totals above).
  if ((s.requests || []).length > 1) {
    lines.push('Requests (by name; ms):');
    const w = Math.max(...s.requests.map((r) => r.name.length));
    for (const r of s.requests) {
      const t = r.responseTimeMs;
      const codes = Object.entries(r.codes || {})
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ');
      const errors = Object.values(r.errors || {}).reduce((a, b) => a + b, 0);
      lines.push(
        `  ${r.name.padEnd(w)}  sent ${r.launched}, answered ${r.completed}${t ? `, median ${t.p50}, p99 ${t.p99}, max ${t.max}` : ''}; ${codes || 'no answer'}${errors ? `; errors ${errors}` : ''}`,
      );
    }
  }
  if (s.responseTimeFromSendMs) {
    const r = s.responseTimeFromSendMs;
    lines.push(`  from the actual send: median ${r.p50}, p99 ${r.p99}, max ${r.max}`);
  }
  if (s.sendLagMs)
    lines.push(
      `Send lag (actual - due, msec): median ${s.sendLagMs.p50}, p99 ${s.sendLagMs.p99}, max ${s.sendLagMs.max}`,
    );
  lines.push(`Codes (expected: ${s.expectStatus ?? '<400'}):`);
  const codes = Object.entries(s.codes);
  if (!codes.length) lines.push('  (none)');
  const failedCodes = s.answersFailed?.codes || {};
  for (const [k, v] of codes) lines.push(`  ${k}: ${v}${k in failedCodes ? '  (failed)' : ''}`);
  const errors = Object.entries(s.errors);
  if (errors.length) {
    lines.push('Errors:');
    for (const [k, v] of errors) lines.push(`  ${k}: ${v}`);
  }
  if (s.expectations) {
    lines.push(
      `Expectations (the expect plugin): ${s.expectations.ok} held, ${s.expectations.failed} failed${s.expectations.failed ? ' (exit code 21, as Artillery)' : ''}`,
    );
  }
  for (const [k, v] of Object.entries(s.customCounters || {})) lines.push(`Counter ${k}: ${v}`);
}

// The load generator: what it is, its CPU and memory, its connections, its load nodes.
function generatorLines(s, lines) {
  const g = s.generator;
  const threads = g.workers > 1 ? ` (${g.workers} threads)` : '';
  const perReq =
    g.cpuMsPerRequest !== null && g.cpuMsPerRequest !== undefined && !s.signal
      ? `, ${g.cpuMsPerRequest} ms of CPU per request`
      : '';
  const load =
    g.cpuPctMean !== undefined
      ? `; CPU mean ${g.cpuPctMean}%, max ${g.cpuPctMax}% of a core; memory ${g.rssMiBStart} -> ${g.rssMiBEnd} MiB (max ${g.rssMiBMax}${g.rssGrowthMiBPerMin !== null ? `, trend ${g.rssGrowthMiBPerMin} MiB/min` : ''})`
      : '';
  lines.push(`Load generator: ${g.name}${threads}${perReq}${load}`);
  if (g.connectionsText) lines.push(`  ${g.connectionsText}`);
  // Its start-up is not part of the run's clock (load nodes take tens of seconds to come).
  if (g.startupS >= 2) lines.push(`  it took ${g.startupS} s to start, before the run's clock began`);
  if (g.nodes) {
    lines.push(`  on ${g.nodes.length} load node(s):`);
    for (const r of loadNodeRows(g.nodes)) lines.push(`    ${r}`);
  }
}

// The per-node table, like docker stats.
function nodeLines(nodes, lines) {
  lines.push('Nodes (like docker stats; CPU in % of one core):');
  const rows = nodes.rows;
  const w = Math.max(4, ...rows.map((r) => r.node.length));
  // Columns for caps and caching edges only when some node has them.
  const capped = rows.some((r) => r.cpuCapPct != null || r.memLimitMiB != null);
  const edges = rows.some((r) => r.requests != null);
  const restarted = rows.some((r) => r.restarts > 0);
  lines.push(
    `  ${'node'.padEnd(w)}  CPU mean   max  MEM max MiB         limit  PIDs${capped ? '  CPU cap  cgroup CPU  throttled  OOM kills' : ''}${edges ? '  requests  hit ratio' : ''}${restarted ? '  restarts' : ''}`,
  );
  const pct = (v) => (v == null ? '-' : `${v}%`);
  for (const r of rows) {
    const limit = r.memLimitMiB ? `${r.memLimitMiB} (${r.memPctOfLimit}%)` : '-';
    const cap = capped
      ? `  ${pct(r.cpuCapPct).padStart(7)}  ${pct(r.cgroupCpuPct).padStart(10)}  ${pct(r.throttledPct).padStart(9)}  ${String(r.oomKills ?? '-').padStart(9)}`
      : '';
    const hits = edges
      ? `  ${String(r.requests ?? '-').padStart(8)}  ${(r.hitRatio == null ? '-' : `${Math.round(r.hitRatio * 1000) / 10}%`).padStart(9)}`
      : '';
    const restarts = restarted ? `  ${String(r.restarts ?? '-').padStart(8)}` : '';
    lines.push(
      `  ${r.node.padEnd(w)}  ${String(r.cpuPctMean).padStart(7)}% ${String(r.cpuPctMax).padStart(5)}%  ${String(r.memMiBMax).padStart(11)}  ${limit.padStart(12)}  ${String(r.pidsMax).padStart(4)}${cap}${hits}${restarts}`,
    );
  }
  for (const r of rows.filter((x) => x.oomKills > 0)) {
    lines.push(`  ${r.node} hit its memory cap: the kernel OOM-killed ${r.oomKills} of its processes`);
  }
  lines.push(`  ${nodes.note}`);
  runtimeLines(nodes, lines);
}

// The runtime probe's figures (lab/probe/): each node's loops, GC and heap; each process of
// the nodes that have several (a replica's workers).
function runtimeLines(nodes, lines) {
  const rows = nodes.rows.filter((r) => r.eventLoopUtilization !== undefined);
  if (!rows.length) {
    if (nodes.runtimeNote) lines.push(`  ${nodes.runtimeNote}`);
    return;
  }
  const w = Math.max(4, ...rows.map((r) => r.node.length), ...(nodes.processes || []).map((p) => p.node.length + 12));
  const dash = (v, suffix = '') => (v == null ? '-' : `${v}${suffix}`);
  const elu = (v) => (v == null ? '-' : `${Math.round(v * 100)}%`);
  const versions = nodes.nodeVersions?.length ? ` (the service on Node ${nodes.nodeVersions.join(', ')})` : '';
  lines.push(`Event loops, GC and heap (the runtime probe in each Node process)${versions}:`);
  lines.push(`  ${'node'.padEnd(w)}  loop busy  delay p99 ms  delay max ms  GC ms  GC busiest s  heap max MiB  requests`);
  const line = (name, r) =>
    `  ${name.padEnd(w)}  ${elu(r.eventLoopUtilization).padStart(9)}  ${dash(r.eventLoopDelayP99Ms).padStart(12)}  ${dash(r.eventLoopDelayMaxMs).padStart(12)}  ${dash(r.gcPauseMs).padStart(5)}  ${dash(r.gcBusiestSecondPct, '%').padStart(12)}  ${dash(r.heapUsedMiBMax).padStart(12)}  ${dash(r.requests).padStart(8)}`;
  for (const r of rows) {
    lines.push(line(r.node, r));
    const procs = (nodes.processes || []).filter((p) => p.node === r.node);
    if (procs.length > 1) {
      for (const p of procs) lines.push(line(`  ${p.role === 'worker' ? `worker ${p.worker}` : p.role} ${p.pid}`, p));
    }
  }
  if (nodes.runtimeNote) lines.push(`  ${nodes.runtimeNote}`);
}

// How many connections had a session to offer and how many of those the entry resumed
// (empty when resumption was off or no connection offered one).
const offeredText = (t) =>
  t.offered == null || !t.handshakes ? '' : ` (${t.offered} offered one, ${t.resumed} resumed)`;

// A TLS run (--tls): the protocol, the new connections and how many resumed, the times of a
// connection's set-up and to an answer's first byte, the entry's CPU for them.
function tlsLines(s) {
  const t = s.tls;
  if (!t) return [];
  const f = (x) => (x ? `median ${x.p50}, p99 ${x.p99}` : '-');
  const lines = [
    `TLS: ${t.protocol} (${Object.entries(t.protocols)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}), ${t.handshakes} new connection(s), ${t.resumedShare === null ? '-' : `${Math.round(t.resumedShare * 100)}%`} of them resumed a session${offeredText(t)}`,
    `  connect ms ${f(t.connectMs)}; TLS handshake ms ${f(t.handshakeMs)}; first byte ms (from the send) ${f(t.firstByteMs)}`,
  ];
  if (t.entry)
    lines.push(
      `  ${t.entry.node}: ${t.entry.cpuMsPerRequest ?? '-'} ms of CPU a request${t.entry.cpuMsPerConnection != null ? `, ${t.entry.cpuMsPerConnection} ms a new connection` : ' (connections kept: no figure a new connection)'}`,
    );
  return lines;
}

// Replicas that changed under load (--autoscale, --rollout-at): their course in a line or two
// (the findings say what it did).
function elasticLines(s) {
  const lines = [];
  const a = s.autoscale;
  if (a) {
    const counts = a.timeline.map((x) => x.replicas);
    const changes = [];
    counts.forEach((c, i) => {
      if (i === 0 || c !== counts[i - 1]) changes.push(`${c} at ${a.timeline[i].t} s`);
    });
    lines.push(
      `Autoscaling (${a.metric}, target ${a.target}${a.unit}, ${a.min}-${a.max}): ${a.decisions.length} decision(s), replicas ${changes.join(', ')}; ${a.replicaSeconds} replica-seconds`,
    );
  }
  const r = s.rollout;
  if (r && r.replaced) {
    const done = r.replaced.length ? r.replaced.map((x) => `${x.old} -> ${x.new}`).join(', ') : 'no replica replaced';
    lines.push(
      `Rollout at ${r.atS} s${r.error ? ' (did not finish)' : ''}: ${done} in ${r.seconds} s; ${r.failed} request(s) failed`,
    );
  }
  return lines;
}

// The Playwright engine's pages and each page's web vitals (ms; CLS has no unit).
function browserLines(b, lines) {
  const codes = Object.entries(b.codes)
    .map(([c, n]) => `${c}: ${n}`)
    .join(', ');
  lines.push(`Browser (Playwright): ${b.pages} page(s) loaded (${codes || 'no code'}), ${b.httpRequests} request(s) by the browser`);
  for (const [vital, byUrl] of Object.entries(b.vitals)) {
    for (const [url, v] of Object.entries(byUrl)) {
      const unit = vital === 'CLS' ? '' : ' ms';
      lines.push(`  ${vital.padEnd(4)} ${url}  p50 ${v.p50}${unit}  p95 ${v.p95}${unit}  p99 ${v.p99}${unit}  max ${v.max}${unit}  (${v.count})`);
    }
  }
}

function renderSummary(s) {
  const lines = [];
  const dep = s.deployment ? s.deployment.label || s.deployment.name : 'external target';
  // Most answers failed: said first, so a run of 404s does not read as a good run.
  const failed =
    s.failedShare > 0.5
      ? `; most answers failed: ${Math.round(s.failedShare * 1000) / 10}% (${[
          ...Object.entries(s.answersFailed?.codes || {}),
          ...Object.entries(s.errors || {}),
        ]
          .map(([k, v]) => `${k}: ${v}`)
          .join(', ')})`
      : '';
  lines.push(
    `${s.endpoint} ${s.scenario} on ${dep}: ${s.status}${s.durationS ? ` after ${s.durationS} s` : ''}${failed}`,
  );
  // No server side: said at the top, with why (the run went on without it).
  const statsd = s.monitoring?.statsd;
  if (statsd && !statsd.ok) lines.push(`No server-side metrics: StatsD did not run (${statsd.reason})`);
  else if (statsd?.note) lines.push(`StatsD: ${statsd.note}`);
  lines.push('');
  // A signaling run's figures are its k6-like table below; the request lines would mislabel them.
  if (!s.signal) httpFigures(s, lines);
  else lines.push(`Participants started: ${s.signal.participants.started}`);
  if (s.browser) browserLines(s.browser, lines);
  const closed = s.generator?.loop === 'closed';
  lines.push(
    s.signal
      ? 'Stages (participants):'
      : closed
        ? 'Phases (requests/s sent):'
        : 'Phases (arrivals/s, target vs achieved):',
  );
  const w = Math.max(...s.phases.map((p) => p.name.length));
  for (const p of s.phases) {
    if (s.signal || closed) {
      lines.push(
        `  ${p.name.padEnd(w)}  ${String(p.durationS).padStart(4)} s${s.signal ? '' : `  sent ${p.achievedRate ?? '-'}/s`}`,
      );
      continue;
    }
    const t =
      p.targetRate.from === p.targetRate.to ? `${p.targetRate.from}` : `${p.targetRate.from}->${p.targetRate.to}`;
    const lag = p.sendLagP99Ms !== null && p.sendLagP99Ms !== undefined ? `, send lag p99 ${p.sendLagP99Ms} ms` : '';
    lines.push(
      `  ${p.name.padEnd(w)}  ${String(p.durationS).padStart(4)} s  target ${t.padEnd(9)} achieved ${p.achievedRate ?? '-'}${p.ratio !== null ? ` (${Math.round(p.ratio * 100)}%)` : ''}${lag}`,
    );
  }
  if (s.peakLaunchedPerS && !s.signal)
    lines.push(`  busiest second: ${s.peakLaunchedPerS} ${closed ? 'requests' : 'arrivals'} launched`);
  if (s.generator) generatorLines(s, lines);
  if (s.machineLoad) {
    const m = s.machineLoad;
    lines.push(
      `This machine: ${m.busyShare !== null ? `its cores ${Math.round(m.busyShare * 100)}% busy` : `${m.cpuPctMean}% of a core busy`} on average, other programs than the run's ${m.othersCpuPctMean}% of a core, load average up to ${m.load1Max}`,
    );
  }
  lines.push(`  ${s.saturation.verdict}`);
  // Stretches where requests failed: when the system answered everything again.
  for (const o of s.outages || []) {
    lines.push(`Failing from ${o.fromS} s to ${o.toS} s into the run (${o.seconds} s): ${o.failed} request(s) failed`);
  }
  if (s.environment?.emulated) lines.push(`Note: ${s.environment.emulated}`);
  if (s.signal) {
    lines.push('Signaling (like k6; ms):');
    const rows = signalRows(s.signal);
    const widths = SIGNAL_HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i] ?? '').length)));
    const line = (r) => `  ${SIGNAL_HEAD.map((_, i) => String(r[i] ?? '').padEnd(widths[i])).join('  ')}`.trimEnd();
    lines.push(line(SIGNAL_HEAD));
    for (const r of rows) lines.push(line(r));
    if (s.signal.failures) {
      const codes = Object.entries(s.signal.failureCodes).map(([k, v]) => `${k} ${v}`);
      lines.push(`  failures: ${codes.join(', ')}`);
    }
  }
  if (s.nodes && s.nodes.rows.length) nodeLines(s.nodes, lines);
  if (s.stores?.postgres) {
    const p = s.stores.postgres;
    lines.push(
      `PostgreSQL: ${p.tpsMean ?? '-'} transactions/s (max ${p.tpsMax ?? '-'}), ${p.connectionsMax ?? '-'} connections at most (${p.waitingMax ?? '-'} waiting on a lock), ${p.rowsReadPerS ?? '-'} rows read/s, ${p.rowsWrittenPerS ?? '-'} written/s, cache hit ratio ${p.cacheHitRatio ?? '-'}${p.refusedConnections ? `, ${p.refusedConnections} connection(s) refused (too many clients)` : ''}`,
    );
  }
  if (s.stores?.redis) {
    const r = s.stores.redis;
    lines.push(
      `Redis: ${r.opsPerSMean ?? '-'} commands/s (max ${r.opsPerSMax ?? '-'}), ${r.clientsMax ?? '-'} clients, ${r.memoryMiBMax ?? '-'} MiB`,
    );
  }
  lines.push(...tlsLines(s));
  lines.push(...elasticLines(s));
  lines.push(...profileLines(s));
  if (s.findings?.length) {
    lines.push('Findings:');
    for (const f of s.findings) lines.push(`  ${f.text}`);
  }
  if (s.thresholds && s.thresholds.length) {
    lines.push('Thresholds:');
    for (const t of s.thresholds)
      lines.push(
        t.source === 'artillery'
          ? `  ${t.ok ? 'pass' : t.optional ? 'fail (optional)' : 'FAIL'}  ${t.text}  (judged by Artillery)`
          : `  ${t.ok ? 'pass' : t.optional ? 'fail (optional)' : 'FAIL'}  ${t.text}  (measured ${t.value ?? 'nothing'}${t.value !== null ? t.unit : ''})`,
      );
  }
  if (s.artillery?.exitCode) {
    lines.push(`Artillery's verdict: exit code ${s.artillery.exitCode}`);
  }
  if (s.resultsDir) lines.push('', `Results: ${s.resultsDir}`);
  return lines.join('\n');
}

// One line per load node: its clock against the lab's, its share, its lag and CPU.
function loadNodeRows(nodes) {
  return nodes.map(
    (n) =>
      `${n.node}: clock ${n.clockOffsetMs >= 0 ? '+' : ''}${n.clockOffsetMs} ms (round trip ${n.rttMs} ms), ${n.workers} thread(s), launched ${n.launched}, ` +
      `p99 ${n.latencyMs?.p99 ?? '-'} ms, send lag p99 ${n.sendLagMs?.p99 ?? '-'} ms, CPU ${n.cpuPctMean ?? '-'}% mean / ${n.cpuPctMax ?? '-'}% max${n.lost ? ', LOST before its end' : ''}`,
  );
}

module.exports = renderSummary;
