'use strict';

const path = require('node:path');
const { labError } = require('../../common/errors');
const { seconds, errorsPerSecond } = require('../measure/records');
const { readJson, readJsonLines, present } = require('../results/files');
const { rebuildSummary } = require('../results/rebuild');
const { parseExpect, failedAnswers } = require('../results/expect-status');
const { runtimeFigures } = require('../probe/figures');

// The fields the report reads from summary.json, by type: anything else is refused naming
// the field, rather than failing somewhere inside the drawing.
function checkSummary(summary, file) {
  const bad = (what) => {
    throw labError('LAB_ERR_RESULTS', file, what);
  };
  if (!summary || typeof summary !== 'object' || Array.isArray(summary)) bad('it is not a JSON object');
  if (!Array.isArray(summary.phases)) bad('"phases" is not a list');
  for (const [i, p] of summary.phases.entries()) {
    if (!p || typeof p !== 'object') bad(`phase ${i + 1} is not an object`);
    if (Number.isNaN(Date.parse(p.startedAt))) bad(`phase ${i + 1} has no valid "startedAt"`);
  }
  if (!summary.phases.length && Number.isNaN(Date.parse(summary.startedAt))) bad('"startedAt" is not a date');
  if (summary.errors !== undefined && (typeof summary.errors !== 'object' || summary.errors === null))
    bad('"errors" is not an object');
}

// Reads a run's results directory into the series its report draws, one point per second,
// x in seconds since the run's first phase began. Every series is what was measured in that
// second (or, for errors, in its 10 s Artillery interval); none is an average of others.
// A run killed before it wrote summary.json is read from its records (lab/results/rebuild.js).
function readRun(dir) {
  const summaryFile = path.join(dir, 'summary.json');
  if (!present(summaryFile)) {
    const rebuilt = rebuildSummary(dir);
    if (!rebuilt) throw labError('LAB_ERR_USAGE', `${dir} is not a run's results directory (no summary.json)`);
    return runWith(dir, rebuilt);
  }
  const summary = readJson(summaryFile);
  checkSummary(summary, summaryFile);
  return runWith(dir, summary);
}

// The client's side, second by second: launched, completed, errored, pending, and the
// response time (each second's own histogram), also against the rate.
function clientSeries(records, secs, summary, recordsFile, x) {
  const byAt = new Map(secs.map((r) => [r.at, r]));
  // Errors are exact per second, or (Artillery) known per 10 s interval and spread over it.
  // (Failed answers count as errors, as the run judged them: lab/results/expect-status.js.)
  const expect = parseExpect(summary.expectStatus);
  const { perSecond: errorsAt } = errorsPerSecond(records, (codes) => failedAnswers(codes, expect).count);
  const ats = secs.map((r) => r.at);
  if (ats.some((v) => !Number.isFinite(v)) || (ats.length && ats[ats.length - 1] - ats[0] > 2 * 86400 * 1000)) {
    throw labError('LAB_ERR_RESULTS', recordsFile, 'its seconds span more than two days');
  }
  const first = ats.length ? ats[0] : 0;
  const last = ats.length
    ? Math.max(ats[ats.length - 1], ...[...errorsAt.keys()].filter((a) => a <= ats[ats.length - 1] + 10000))
    : 0;
  const launched = [];
  const completed = [];
  const errored = [];
  const pending = [];
  const rtMedian = [];
  const rtMax = [];
  const rtP99 = [];
  // Response time against throughput, one point a second (Gatling's view): [completed/s, ms].
  const rtByRate = { p50: [], p99: [] };
  let cum = 0;
  for (let at = first; ats.length && at <= last; at += 1000) {
    const r = byAt.get(at);
    const a = r ? r.launched : 0;
    const c = r ? r.completed : 0;
    const e = errorsAt.get(at) || 0;
    cum += a - c - e;
    const t = x(at);
    launched.push([t, a]);
    completed.push([t, c]);
    errored.push([t, Math.round(e * 10) / 10]);
    pending.push([t, Math.max(0, Math.round(r && typeof r.pending === 'number' ? r.pending : cum))]);
    // Client-side response time: each second's own histogram.
    if (r && r.latencyMs && r.latencyMs.count) {
      rtMedian.push([t, r.latencyMs.p50]);
      rtMax.push([t, r.latencyMs.max]);
      if (typeof r.latencyMs.p99 === 'number') rtP99.push([t, r.latencyMs.p99]);
      rtByRate.p50.push([c, r.latencyMs.p50]);
      if (typeof r.latencyMs.p99 === 'number') rtByRate.p99.push([c, r.latencyMs.p99]);
    }
  }
  return { launched, completed, errored, pending, rtMedian, rtMax, rtP99, rtByRate };
}

// The server's side: the service's timer for this endpoint per StatsD flush, or the entry's
// wait for the replica where the service sends none.
function serverSeries(dir, summary, secs, x) {
  // (All replicas' timers in one, per flush.)
  const statsd = readJsonLines(path.join(dir, 'statsd.jsonl'));
  const timerKey = Object.keys(Object.assign({}, ...statsd.map((f) => f.timers))).find((k) =>
    k.endsWith(`.service.${summary.endpoint}.response_time`),
  );
  const srvMedian = [];
  const srvMax = [];
  for (const f of statsd) {
    const tm = timerKey && f.timers[timerKey];
    if (tm) {
      srvMedian.push([x(f.at), tm.median]);
      srvMax.push([x(f.at), tm.upper]);
    }
  }
  // A service that sends no StatsD (yours): the entry balancer's time to each replica's
  // answer stands in (X-Lab-Upstream, where the kind reports it), each second's own figures.
  let serverSource = srvMedian.length ? 'StatsD' : null;
  if (!srvMedian.length) {
    for (const r of secs) {
      if (!r.upstreamMs) continue;
      srvMedian.push([x(r.at), r.upstreamMs.p50]);
      srvMax.push([x(r.at), r.upstreamMs.max]);
    }
    if (srvMedian.length) serverSource = "the entry balancer's wait for the replica";
  }
  return { srvMedian, srvMax, serverSource };
}

// Each node's CPU and memory, the data stores' figures and the runtime probe's, on the run's
// time axis.
function nodeSeries(dir, x) {
  // CPU and memory per node.
  const nodes = readJsonLines(path.join(dir, 'nodes.jsonl'));
  const cpu = {};
  const rss = {};
  for (const s of nodes) {
    for (const [name, n] of Object.entries(s.nodes)) {
      (cpu[name] = cpu[name] || []).push([x(s.at), n.cpuPct]);
      (rss[name] = rss[name] || []).push([x(s.at), n.rssMiB]);
    }
  }
  const peaks = Object.fromEntries(
    Object.keys(cpu).map((n) => [
      n,
      { cpuPct: Math.max(...cpu[n].map((p) => p[1])), rssMiB: Math.max(...rss[n].map((p) => p[1])) },
    ]),
  );

  // The data stores' own figures, second by second (--with): each series by store.
  const stores = {};
  for (const r of readJsonLines(path.join(dir, 'stores.jsonl'))) {
    const s = (stores[r.store] ??= {});
    for (const [k, v] of Object.entries(r)) {
      if (k === 'store' || k === 'at' || typeof v !== 'number') continue;
      (s[k] ??= []).push([x(r.at), v]);
    }
  }

  // The runtime probe's figures per node and second (lab/probe/): loop, delay, GC, heap.
  const runtime = {};
  const datagrams = readJsonLines(path.join(dir, 'runtime.jsonl'));
  if (datagrams.length) {
    for (const [node, ser] of Object.entries(runtimeFigures(datagrams).series)) {
      runtime[node] = Object.fromEntries(Object.entries(ser).map(([k, pts]) => [k, pts.map(([at, v]) => [x(at), v])]));
    }
  }
  return { cpu, rss, peaks, stores, runtime };
}

// The same from a summary in hand (the live dashboard's, of a run still going) and the
// files the run has written so far.
function runWith(dir, summary) {
  summary.errors = summary.errors || {};
  const deployment = present(path.join(dir, 'deployment.json')) ? readJson(path.join(dir, 'deployment.json')) : null;
  // The generator's neutral records (lab/measure/records.js).
  const recordsFile = path.join(dir, 'records.jsonl');
  const records = readJsonLines(recordsFile);
  const secs = seconds(records);
  const t0 = summary.phases.length ? Date.parse(summary.phases[0].startedAt) : Date.parse(summary.startedAt);
  const x = (ms) => Math.round((ms - t0) / 100) / 10;

  const { launched, completed, errored, pending, rtMedian, rtMax, rtP99, rtByRate } = clientSeries(
    records,
    secs,
    summary,
    recordsFile,
    x,
  );

  const { srvMedian, srvMax, serverSource } = serverSeries(dir, summary, secs, x);

  const { cpu, rss, peaks, stores, runtime } = nodeSeries(dir, x);

  const phases = summary.phases.map((p) => ({ ...p, x: x(Date.parse(p.startedAt)) }));
  // Failing stretches on the charts' time axis (the summary counts them from the first second).
  const firstAt = secs.length ? secs[0].at : t0;
  const failing = (summary.outages || []).map((o) => ({
    from: x(firstAt + o.fromS * 1000),
    to: x(firstAt + o.toS * 1000),
    label: `${o.failed} failed`,
  }));
  return {
    dir,
    name: path.basename(dir),
    summary,
    deployment,
    phases,
    failing,
    series: {
      launched,
      completed,
      errored,
      pending,
      rtMedian,
      rtMax,
      rtP99,
      rtByRate,
      srvMedian,
      srvMax,
      cpu,
      rss,
      stores,
      runtime,
    },
    serverSource,
    peaks,
  };
}

// A results folder whose files parse but hold something else than a run wrote (a field of
// the wrong type deep inside) is still one message naming the folder, not a stack trace.
function loadRun(dir) {
  try {
    return readRun(dir);
  } catch (err) {
    if (err.code && String(err.code).startsWith('LAB_ERR_')) throw err;
    throw labError('LAB_ERR_RESULTS', dir, `unexpected content (${err.message})`);
  }
}

module.exports = loadRun;
module.exports.runWith = runWith;
