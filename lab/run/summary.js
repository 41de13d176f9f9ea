'use strict';

const fs = require('node:fs');
const { GENERATORS } = require('../generators');
const { summarize, machineSamplesOf } = require('../results/summary');
const { closedLoopCpu } = require('../generators/judge');
const { signalSummary } = require('../results/signal-summary');
const { evaluate } = require('../results/thresholds');
const { nodeTable } = require('../monitoring/node-table');
const { requestNames } = require('../scenario/model');
const { runFindings } = require('../analysis/run-findings');
const { noAnswer } = require('../results/no-answer');
const { readJsonLines } = require('../results/files');
const { kindOf } = require('../kinds');
const { gather } = require('../measure/records');
const { autoscaleResults, rolloutResults, spikeResults } = require('../elastic/results');
const { byReplica } = require('../measure/upstream');

// The generator's CPU, second by second: its own process's samples, or the busiest load
// node's (load nodes report their own).
function generatorSamples(run) {
  if (run.loadNodeSamples) return run.loadNodeSamples();
  return run.monitoring.samples.filter((s) => s.nodes.generator).map((s) => ({ at: s.at, ...s.nodes.generator }));
}

// The summary: a pure function of the records and the samples (lab/results/summary.js),
// plus the thresholds, the node table and what the run's context adds. o: { status,
// workers, write (false: the live page's, not written), dashboard }.
function summarizeRun(run, { status, workers = null, write = true, dashboard = null }) {
  const { p } = run;
  // The records read once; the summary's sections, the signal's and the replicas' changes
  // read what that pass gathered (lab/measure/records.js).
  const g = gather(readJsonLines(run.file('records.jsonl')));
  const summary = summarize({
    endpoint: p.endpoint,
    scenario: p.scenario,
    deployment: run.state ? p.deployment : null,
    target: run.target,
    phases: run.genPlan.phases,
    status,
    startedAt: run.startedAt ?? new Date().toISOString(),
    endedAt: new Date().toISOString(),
    resultsDir: run.dir,
    gathered: g,
    generator: {
      name: p.generator,
      loop: GENERATORS[p.generator].loop,
      precision: GENERATORS[p.generator].precision,
      workers,
    },
    generatorSamples: generatorSamples(run),
    machineSamples: run.loadNodeSamples ? [] : machineSamplesOf(run.monitoring.samples || []),
    machine: run.machine,
    mergeCache: write ? null : run.liveCache,
    expect: p.expect,
    requestNames: p.model ? requestNames(p.model) : null,
  });
  if (p.signal) signalVerdict(summary, g, run.genPlan);
  else noAnswer(summary);
  const cluster =
    run.state?.cluster ??
    // (A --target on the lab's emulated cluster is said to be one too.)
    (process.env.LAB_EMULATED && p.target && new URL(p.target).hostname === process.env.LAB_HOST
      ? { dir: process.env.LAB_CLUSTER_DIR, emulated: true }
      : null);
  // A run on the lab's emulated cluster (TCG) says so in every summary and report.
  if (cluster?.emulated) {
    summary.environment = {
      cluster: cluster.dir,
      emulated:
        'the deployment ran on emulated VMs (TCG): its timings are several times slower than this machine and comparable only within this cluster',
    };
  }
  // (Replicas that came and went are named too: each change says its port.)
  nameReplicas(summary, { ...(run.addressNames || {}), ...elasticNames(run) });
  withElastic(summary, run, g);
  summary.thresholds = [...evaluate(p.thresholds, summary), ...artilleryChecks(summary)];
  summary.monitoring = run.monitoring.sources;
  summary.nodes = nodesOf(run, summary, write);
  withTlsCost(summary);
  withProfile(summary, run.profiled);
  summary.findings = runFindings(summary);
  if (dashboard) summary.dashboard = dashboard;
  // Where the run's figures also went (--out), and what was not delivered.
  if (run.outputs?.length) summary.outputs = run.outputs;
  if (run.warmup) summary.warmup = run.warmup;
  if (write) run.writeJson('summary.json', summary);
  return summary;
}

// The share of requests with a connection of their own from which the entry's CPU is said per
// new connection.
const NEW_PER_REQUEST = 0.9;

// A TLS run's cost at the entry (--tls): its CPU (the node table's mean, over the run) per
// request answered and per new connection (a handshake, full or resumed), on its row too.
function withTlsCost(summary) {
  const t = summary.tls;
  const kind = summary.deployment?.balancer?.kind;
  if (!t || !kind) return;
  const node = kindOf(kind).node;
  const row = summary.nodes?.rows?.find((r) => r.node === node);
  if (!row || row.cpuPctMean == null || !summary.durationS) return;
  const cpuMs = (row.cpuPctMean / 100) * summary.durationS * 1000;
  const per = (n) => (n > 0 ? Math.round((cpuMs / n) * 1000) / 1000 : null);
  // A figure a new connection only where each request had one: the entry's CPU over the run
  // is then a connection's and its request's. Over connections kept open it went to the
  // requests (an HTTP/2 closed loop of 4 sessions was once said to cost 96.6 ms of CPU a new
  // connection: the whole run's CPU over 4).
  const requests = summary.requestsCompleted || 0;
  const perConnection = t.handshakes > 0 && t.handshakes >= NEW_PER_REQUEST * requests;
  t.entry = {
    node,
    cpuMsPerRequest: per(requests),
    cpuMsPerConnection: perConnection ? per(t.handshakes) : null,
    note: perConnection
      ? "the entry's CPU over the run (its process tree, the node table's mean) per request answered and per new connection (each request had its own)"
      : `the entry's CPU over the run (its process tree, the node table's mean) per request answered; none a new connection: ${t.handshakes} connection(s) carried ${requests} request(s), so the CPU went to the requests`,
  };
  row.tls = { handshakes: t.handshakes, resumedShare: t.resumedShare, cpuMsPerConnection: t.entry.cpuMsPerConnection };
}

// --profile (lab/run/profile.js): the processes' profiles, and each store's statements (the
// database's) or commands (the cache's) beside its other figures.
function withProfile(summary, profiled) {
  if (!profiled) return;
  summary.profile = profiled.profile;
  for (const [name, got] of Object.entries(profiled.stores || {})) {
    summary.stores ??= {};
    const into = (summary.stores[name] ??= {});
    if (got.error) into.statementsError = got.error;
    else if (got.statements) Object.assign(into, { statements: got.statements, statementsTotalMs: got.totalMs });
    else if (got.commands)
      Object.assign(into, { commands: got.commands, commandsTotalMs: got.totalMs, slowlog: got.slowlog });
  }
}

// A participants' run has no arrival rate to miss: what the generator could not hold, the
// deployment did not take, unless the generator's own CPU ran out (judged in the summary).
function signalVerdict(summary, g, genPlan) {
  summary.signal = signalSummary(g, genPlan);
  if (!summary.saturation.saturated) {
    const { peak, target } = summary.signal.participants;
    summary.saturation.verdict = `participants: ${peak} of the ${target} asked were connected at the peak; ${closedLoopCpu(summary.phases, summary.generator)}`;
  }
}

// Artillery's own checks (the ensure plugin's, as it judged them), beside the lab's.
function artilleryChecks(summary) {
  return (summary.artillery?.checks || []).map((c) => ({
    text: c.original,
    source: 'artillery',
    value: null,
    unit: '',
    ok: c.result === 1 || c.result === true,
    ...(c.strict === false ? { optional: true } : {}),
  }));
}

// Replicas of --autoscale or a rollout (lab/run/elastic.js): address -> name of every one
// the changes started.
function elasticNames(run) {
  const out = {};
  for (const c of run.elastic?.changes || []) {
    const r = c.added || c.removed;
    if (r?.port && run.state?.host) out[`${run.state.host}:${r.port}`] = r.name;
    // (In containers, by the container's address.)
    if (r?.address) out[r.address] = r.name;
  }
  return out;
}

// What the replicas' changes did (lab/elastic/results.js): summary.autoscale, summary.rollout.
// (A plan with spikes, its replicas fixed or not, says when each was absorbed: summary.spikes.)
function withElastic(summary, run, { secs, firstPhaseAt: firstPhase }) {
  const endMs = secs.length ? secs.at(-1).at + 1000 : Date.now();
  const sloMs = run.p.sloMs ?? 500;
  if (firstPhase !== undefined && !run.p.signal) {
    const spikes = spikeResults({
      secs,
      phases: run.genPlan.phases,
      expect: run.p.expect,
      sloMs,
      t0: firstPhase,
      endMs,
    });
    if (spikes.length) summary.spikes = { sloMs, list: spikes.map(({ untilS: _u, ...x }) => x) };
  }
  const e = run.elastic;
  if (!e || e.t0 === undefined) return;
  const names = { ...(run.addressNames || {}), ...elasticNames(run) };
  const o = { secs, phases: run.genPlan.phases, expect: run.p.expect, sloMs, endMs, names };
  if (run.p.elastic.autoscale) summary.autoscale = autoscaleResults(run.p.elastic.autoscale, e, o);
  if (run.p.elastic.rollout)
    summary.rollout = rolloutResults(e, o) ?? { error: 'the load ended before the rollout began' };
  // A rollout that did not finish, or a change of replicas the autoscaler asked for and the
  // runtime could not make, leaves the run's question unanswered: a failed run, never green.
  const why = summary.rollout?.error
    ? `the rollout did not finish: ${summary.rollout.error}`
    : e.errors?.length
      ? `${e.errors[0].what} failed: ${e.errors[0].error}`
      : null;
  if (why && summary.status === 'completed') summary.status = `failed (${why})`;
}

// The entry named replicas by address (or, HAProxy, by name): the deployment's names.
function nameReplicas(summary, names) {
  if (summary.answeredBy) summary.answeredBy = byReplica(summary.answeredBy, names);
}

// The node table (like docker stats), with each replica's answers as the entry named them,
// and a generator row per load node.
function nodesOf(run, summary, write = true) {
  const extra = run.readings ? run.readings.read() : { limits: {} };
  const nodes = nodeTable(run.monitoring.samples || [], extra.limits, extra);
  // The data stores' own figures (--with): in the summary and their rows; each second of
  // them in stores.jsonl, for the report's charts.
  const stores = extra.stores || {};
  if (Object.keys(stores).length) {
    summary.stores = Object.fromEntries(
      Object.entries(stores).map(([n, f]) => [
        n,
        {
          ...f.summary,
          ...(f.refused !== undefined ? { refusedConnections: f.refused } : {}),
          ...(f.error ? { error: f.error } : {}),
        },
      ]),
    );
    for (const row of nodes.rows) if (summary.stores[row.node]) row.store = summary.stores[row.node];
    if (write) {
      const lines = Object.entries(stores).flatMap(([n, f]) =>
        f.samples.map((x) => JSON.stringify({ store: n, ...x })),
      );
      fs.writeFileSync(run.file('stores.jsonl'), lines.length ? `${lines.join('\n')}\n` : '');
    }
  }
  for (const row of nodes.rows) {
    if (row.requests == null && summary.answeredBy?.[row.node] !== undefined)
      row.requests = summary.answeredBy[row.node];
  }
  withRuntime(nodes, extra, run.monitoring.samples || []);
  for (const n of summary.generator?.nodes || []) {
    nodes.rows.push({
      node: `generator@${n.node}`,
      cpuPctMean: n.cpuPctMean,
      cpuPctMax: n.cpuPctMax,
      memMiBMax: n.rssMiBMax,
      memLimitMiB: null,
      memPctOfLimit: null,
      pidsMax: 1,
      netInBytes: null,
      netOutBytes: null,
      cpuCapPct: null,
      cgroupCpuPct: null,
      oomKills: null,
      requests: null,
      hitRatio: null,
    });
  }
  return nodes;
}

// The runtime probe's figures (lab/probe/) on the node table: the four flat fields on each
// node's row, every process of the service on its own (nodes.processes: a worker's requests
// and loop beside its siblings'), or why they are not there (nodes.runtimeNote).
function withRuntime(nodes, extra, samples) {
  const rt = extra.runtime;
  if (!rt) {
    if (extra.runtimeNote) nodes.runtimeNote = `event loop, GC and heap not measured: ${extra.runtimeNote}`;
    return;
  }
  for (const row of nodes.rows) {
    const f = rt.nodes[row.node];
    if (!f) continue;
    Object.assign(row, {
      eventLoopDelayP99Ms: f.eventLoopDelayP99Ms,
      eventLoopUtilization: f.eventLoopUtilization,
      gcPauseMs: f.gcPauseMs,
      heapUsedMiBMax: f.heapUsedMiBMax,
      eventLoopDelayMaxMs: f.eventLoopDelayMaxMs,
      gcBusiestSecondPct: f.gcBusiestSecondPct,
      loops: f.loops,
    });
    if (row.requests == null && f.requests) row.requests = f.requests;
  }
  // Each process's CPU where the sampler followed it alone, by pid: a worker, or a node of one
  // process (a node's root is its whole tree; a container's own pids are not the host's).
  const cpuByPid = new Map();
  for (const s of samples) {
    for (const [name, n] of Object.entries(s.nodes || {})) {
      if (!n.pid || (!name.includes('.') && n.pids !== 1)) continue;
      if (!cpuByPid.has(n.pid)) cpuByPid.set(n.pid, []);
      cpuByPid.get(n.pid).push(n.cpuPct);
    }
  }
  const mean = (xs) => Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 10) / 10;
  nodes.processes = rt.processes.map((p) => ({
    ...p,
    cpuPctMean: cpuByPid.has(p.pid) ? mean(cpuByPid.get(p.pid)) : null,
  }));
  // The Node versions the service's processes said they run (the probe's datagrams).
  nodes.nodeVersions = [...new Set(rt.processes.map((p) => p.nodeVersion).filter(Boolean))].sort();
  const missing = nodes.rows.filter((r) => /^replica-\d+$/.test(r.node) && !rt.nodes[r.node]).map((r) => r.node);
  if (missing.length)
    nodes.runtimeNote = `no runtime figures arrived from ${missing.join(', ')} (${rt.received.received} datagrams received in all): a start line that sets its own NODE_OPTIONS, or a program that is not Node, leaves the probe out`;
}

module.exports = { summarizeRun };
