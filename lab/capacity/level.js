'use strict';

const path = require('node:path');
const { labError } = require('../../common/errors');
const { labChild, reasonOf, interruptChild } = require('../run/child');
const { own } = require('../ownership/cleanups');
const { summarize } = require('../results/summary');
const { launchedShort: phaseShort } = require('../generators/judge');
const { evaluate, METRICS } = require('../results/thresholds');
const { machineShare } = require('../analysis/findings');
const { readJsonLines } = require('../results/files');
const { jobInto } = require('../run/job');
const { COMMAND: SCENARIO } = require('../run/scenario-flags');

// One level of a capacity search: the scenario held at `rate` arrivals a second against a
// deployment that is up (`npm run scenario ... --target URL --rate R`, a child command, so
// that its run folder, node table and report are a run's like any other), then judged on its
// measured window only: the first `warmupS` seconds (connections opening, caches filling,
// the JIT warming) are left out of its percentiles and errors.
//   o: { levelWords (the scenario's own words: endpoint scenario; none for a script), passed
//        (the flags passed on: { values, tokens }, ./plan.js), target, rate, warmupS, holdS,
//        dir, slos,
//        values (what the search set for every level, as values: its context, its outputs),
//        timeoutS (the time the search has left: the run is stopped past it, and the level
//        fails as cut) }
async function runLevel(o) {
  const r = await child(levelJob(o), o.timeoutS ?? null);
  if (r.cut)
    throw labError(
      'LAB_ERR_PROCESS',
      `the level at ${o.rate}/s`,
      `cut by the search's time limit after ${Math.round(o.timeoutS)} s (stopped, its run kept in ${o.dir})`,
    );
  let summary;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    throw labError('LAB_ERR_PROCESS', `the level at ${o.rate}/s`, reasonOf(r.tail, r.code));
  }
  return judgeLevel(summary, o);
}

// A level's child run as a job (../run/job.js): what the user typed for it (the scenario's
// words, and the flags passed on: values where scenario's table holds the same flag, else the
// text as typed, parsed once by scenario's own table: ./plan.js passed); the search's values
// (context, outputs) and each level's rate, length, target and folder set as values, never
// written back as text to be parsed again. The job is written into the level's folder,
// claimed for it, and kept there as what the run was asked.
const bases = new Map();
function levelJob(o) {
  const key = JSON.stringify([o.levelWords, o.passed.tokens]);
  if (!bases.has(key)) bases.set(key, SCENARIO.parsePart([...o.levelWords, ...o.passed.tokens]));
  const dir = path.resolve(o.dir);
  const level = { target: o.target, rate: o.rate, duration: o.warmupS + o.holdS, 'run-dir': dir };
  const fixed = { generator: 'fast', 'no-statsd': true, 'no-graphite': true, json: true };
  return jobInto(dir, 'scenario', SCENARIO, bases.get(key), {
    ...o.passed.values,
    ...fixed,
    ...o.values,
    ...level,
  });
}

// A level's measured window: its records from the end of its warm-up on (the done record
// without the whole run's totals), and when that window began.
function windowOf(dir, warmupS, startedAt) {
  const records = readJsonLines(path.join(dir, 'records.jsonl'));
  const t0 = records.find((r) => r.type === 'phase')?.at ?? Date.parse(startedAt);
  const from = t0 + warmupS * 1000;
  const window = records
    .filter((r) => r.type !== 'second' || r.at >= from)
    .map((r) => (r.type === 'done' ? { ...r, totals: undefined, latencyMs: undefined, requests: undefined } : r));
  return { from, window };
}

// The seconds of a level's held window: its measured window (./windowOf, from the end of its
// warm-up) less the drain after it.
const heldSeconds = (window, from, holdS) =>
  window.filter((r) => r.type === 'second' && r.at >= from && r.at < from + holdS * 1000);

// Whether the deployment kept up with its arrivals over `seconds` (a held window): requests
// that ended there (answered or failed) against those launched there. A rate it answers only
// in part has not held, whatever its latency says: over a short level, a queue growing by 15%
// of the rate a second stays under a loose p99, and a 125/s service was once said to hold
// 140/s (119.5/s answered). The rule's slack is what the window's edges can misplace at a
// steady rate (answers to arrivals of the second before it, in flight at its end): 5% of what
// was launched, at least 3 requests. Judged like an SLO and said as one, a share in %; a level
// that launched nothing is not judged here (the generator's rule is).
const KEPT_UP = { share: 0.95, atLeast: 3 };
function keptUp(seconds) {
  const launched = seconds.reduce((a, r) => a + (r.launched || 0), 0);
  const ended = seconds.reduce(
    (a, r) => a + (r.completed || 0) + Object.values(r.errors || {}).reduce((x, y) => x + y, 0),
    0,
  );
  const slack = Math.max(KEPT_UP.atLeast, launched * (1 - KEPT_UP.share));
  return {
    text: `answered>=${KEPT_UP.share * 100}%`,
    metric: 'answered',
    op: '>=',
    limit: KEPT_UP.share * 100,
    percent: true,
    value: launched ? Math.round((ended / launched) * 1000) / 10 : null,
    unit: '%',
    launched,
    ended,
    ok: launched === 0 || ended >= launched - slack,
  };
}

// A level's figures over its measured window, and the SLOs judged on them.
function judgeLevel(summary, o) {
  const { from, window } = windowOf(o.dir, o.warmupS, summary.startedAt);
  const measured = summarize({
    endpoint: summary.endpoint,
    scenario: summary.scenario,
    phases: [{ name: 'measured', duration: o.holdS, arrivalRate: o.rate }],
    status: summary.status,
    startedAt: new Date(from).toISOString(),
    records: window,
    generator: { name: 'fast', loop: 'open' },
    expect: o.expect,
    requestNames: summary.requests.map((q) => q.name),
  });
  // Answers a second: those completed inside the held window only. The seconds after it (the
  // drain) still count for latency and errors, but answers to arrivals queued during the
  // warm-up, let out in the drain, would show an overloaded deployment answering more than it
  // was offered.
  const held = heldSeconds(window, from, o.holdS);
  const thresholds = [...evaluate(o.slos, measured), keptUp(held)];
  const inHold = held.reduce((a, r) => a + (r.completed || 0), 0);
  const share = machineShare(summary);
  const restarts = restartsOf(summary);
  return {
    rate: o.rate,
    dir: o.dir,
    // When its measured window began (ms): how far apart probes at rest were (./recovery.js).
    at: from,
    warmupS: o.warmupS,
    holdS: o.holdS,
    requests: measured.requestsSent,
    answered: measured.requestsCompleted,
    answeredPerS: Math.round((inHold / o.holdS) * 10) / 10,
    latencyMs: measured.responseTimeMs,
    // (The errors SLO's own figure: a share of what was sent, or of what ended when the
    // window saw more end than it sent.)
    errorsPct: METRICS.errors(measured, true),
    perRequest: measured.requests,
    thresholds,
    // (A process that restarted under the level crashed: the level did not hold, whatever its
    // figures say.)
    ok: thresholds.every((t) => t.ok) && measured.requestsCompleted > 0 && !restarts.length,
    ...(restarts.length ? { restarts } : {}),
    // The generator could not launch the asked rate: what lies above cannot be measured here.
    // (Sending late is not that: latency is timed from each arrival's due time, so its lateness
    // is already in the figures the SLO judged, against the deployment.)
    generatorBound: launchedShort(summary),
    sendLagP99Ms: summary.sendLagMs?.p99 ?? null,
    machineShare: share === null ? null : Math.round(share * 1000) / 1000,
    // The whole machine's cores busy (every program, the kernel's work for the connections
    // included: /proc/stat), which the run's own processes' CPU leaves out.
    coresShare: coresShare(summary),
    // How long the deployment's processes waited for a core (./machine.js waitedShare).
    waitShare: waitShare(summary),
    generatorCpuPct: summary.generator?.cpuPctMean ?? null,
    cost: costOf(summary),
    loops: loopsOf(summary),
    // The Node versions the service's processes reported (the runtime probe): what ran, read
    // from the processes themselves.
    ...(summary.nodes?.nodeVersions?.length ? { nodeVersions: summary.nodes.nodeVersions } : {}),
    ...(summary.profile || summary.stores ? { profile: profileOf(summary) } : {}),
  };
}

// The deployment's processes that pm2 restarted during the run (its node table, from pm2's
// own log), and the workers that ended inside a replica (the sampler's process tree):
// [{ node, restarts, exitCodes, kills, workers }].
// A worker that ended inside a replica (its cluster primary forks another: pm2 sees nothing)
// counts as a restart too: { node, restarts: 0, workers (how many ended) }.
function restartsOf(summary) {
  return (summary.nodes?.rows || [])
    .filter((r) => r.restarts > 0 || r.workerExits > 0)
    .map((r) => ({
      node: r.node,
      restarts: r.restarts ?? 0,
      exitCodes: r.exitCodes || {},
      ...(r.kills ? { kills: r.kills } : {}),
      ...(r.workerExits ? { workers: r.workerExits } : {}),
    }));
}

// Several runs at one rate judged as one measurement (a verification's repetitions): every
// SLO on their measured windows pooled, each second's histograms merged across the runs and
// the errors summed, never their percentiles averaged. One run's stall counts for what it
// weighs in all of them: a noisy knee that broke one of three runs by a hair once left a
// deployment with no verified rate at all.
function judgePooled(levels, o) {
  const secs = [];
  // (Each run's held window, for whether it kept up: the drains after them are not arrivals'.)
  const held = [];
  const names = new Set();
  let holdS = 0;
  for (const l of levels) {
    const { from, window } = windowOf(l.dir, l.warmupS, new Date().toISOString());
    secs.push(...window.filter((r) => r.type === 'second'));
    held.push(...heldSeconds(window, from, l.holdS));
    holdS += l.holdS;
    for (const q of l.perRequest || []) names.add(q.name);
  }
  const measured = summarize({
    endpoint: 'pooled',
    scenario: 'verification',
    phases: [{ name: 'measured', duration: holdS, arrivalRate: levels[0].rate }],
    status: 'completed',
    startedAt: new Date(secs[0]?.at ?? Date.now()).toISOString(),
    records: secs,
    generator: { name: 'fast', loop: 'open' },
    expect: o.expect,
    requestNames: [...names],
  });
  const thresholds = [...evaluate(o.slos, measured), keptUp(held)];
  return {
    ok: thresholds.every((t) => t.ok) && measured.requestsCompleted > 0,
    thresholds,
    latencyMs: measured.responseTimeMs,
    errorsPct: METRICS.errors(measured, true),
    requests: measured.requestsSent,
    runs: levels.length,
  };
}

// What the level's processes and stores spent their time on (--profile), in short: each node's
// top functions, the database's statements, the cache's commands (the level's own summary
// has the rest).
function profileOf(summary) {
  const TOP = 5;
  const nodes = Object.fromEntries(
    Object.entries(summary.profile?.nodes || {}).map(([n, x]) => [
      n,
      { busyShare: x.busyShare, top: x.top.slice(0, TOP) },
    ]),
  );
  return {
    nodes,
    statements: summary.stores?.postgres?.statements?.slice(0, TOP) ?? null,
    commands: summary.stores?.redis?.commands?.slice(0, TOP) ?? null,
    notes: summary.profile?.notes ?? [],
  };
}

// Each replica's event loop at this level (the runtime probe, lab/probe/), so the page shows
// it approaching saturation as the rate rises; null when the probe was not there.
function loopsOf(summary) {
  const rows = (summary.nodes?.rows || []).filter((r) => r.eventLoopUtilization !== undefined);
  if (!rows.length) return null;
  return rows.map((r) => ({
    node: r.node,
    eventLoopUtilization: r.eventLoopUtilization,
    eventLoopDelayP99Ms: r.eventLoopDelayP99Ms,
    gcPauseMs: r.gcPauseMs,
    heapUsedMiBMax: r.heapUsedMiBMax,
  }));
}

// The share of the time the deployment's processes (every node but the generator) waited,
// runnable, for a core, 0 to 1: their mean. null where the kernel keeps no schedstat.
function waitShare(summary) {
  const rows = (summary.nodes?.rows || []).filter((r) => !r.node.startsWith('generator') && r.waitPctMean != null);
  if (!rows.length) return null;
  return Math.round((rows.reduce((a, r) => a + r.waitPctMean, 0) / rows.length / 100) * 1000) / 1000;
}

function coresShare(summary) {
  const cores = summary.machine?.cores;
  const pcts = (summary.phases || []).map((p) => p.machineCpuPctMean).filter(Number.isFinite);
  if (!cores || !pcts.length) return null;
  return Math.round((Math.max(...pcts) / (cores * 100)) * 1000) / 1000;
}

// (By the generator's own rule, ../generators/judge.js: a phase short by more arrivals than
// its boundaries can misplace. A run of several phases, choose's autoscaler ramp, once read
// 14.7/s of 15/s in a 5 s ramp, its generator at 3% of a core, as a generator's limit.)
function launchedShort(summary) {
  const phases = summary.phases || [];
  const p = phases.find((ph) => phaseShort(ph, phases));
  return p
    ? `the generator launched ${p.achievedRate}/s of the ${p.targetRate.mean}/s asked${p.generatorCpuPctMean !== null ? ` (${p.generatorCpuPctMean}% of a core)` : ''}`
    : null;
}

// What the deployment spent: every node's CPU (the generator's left out) over the answers of
// the whole run, in ms of CPU a request, for the deployment and for each tier; its memory.
function costOf(summary) {
  const rows = (summary.nodes?.rows || []).filter((r) => !r.node.startsWith('generator'));
  const seconds = summary.durationS || 0;
  const answers = summary.requestsCompleted || 0;
  const tierOf = (node) => (/^replica-/.test(node) ? 'replicas' : /^edge-/.test(node) ? 'edges' : node);
  const tiers = {};
  for (const r of rows) tiers[tierOf(r.node)] = (tiers[tierOf(r.node)] || 0) + (r.cpuPctMean || 0);
  const msPer = (pct) => (answers ? Math.round(((pct / 100) * seconds * 1e6) / answers) / 1000 : null);
  const all = rows.reduce((a, r) => a + (r.cpuPctMean || 0), 0);
  return {
    cpuMsPerRequest: msPer(all),
    cpuCores: Math.round(all) / 100,
    tiers: Object.fromEntries(Object.entries(tiers).map(([t, pct]) => [t, msPer(pct)])),
    // Each tier's cores, its mean over the run (a tier against what it is given: npm run choose).
    tierCores: Object.fromEntries(Object.entries(tiers).map(([t, pct]) => [t, Math.round(pct) / 100])),
    memoryMiB: Math.round(rows.reduce((a, r) => a + (r.memMiBMax || 0), 0) * 10) / 10,
    // One replica's memory at its largest (a Kubernetes request is per replica).
    replicaMemoryMiB: replicaMemory(rows),
  };
}

function replicaMemory(rows) {
  const replicas = rows.filter((r) => /^replica-/.test(r.node) && r.memMiBMax != null);
  return replicas.length ? Math.round(Math.max(...replicas.map((r) => r.memMiBMax)) * 10) / 10 : null;
}

// A lab command as a child: its stdout kept, its stderr's last lines for a reason; stopped
// with the command (Ctrl-C reaches it with the terminal's process group too).
// A level's child run, stopped (SIGINT: its own cleanup runs, then SIGKILL after a grace)
// when it outlives `timeoutS`, the time its search has left: a step that hangs never carries
// a search past its --time-limit. -> { code, stdout, tail, cut }.
const CUT_GRACE_MS = 10000;
async function child(args, timeoutS = null, onLine = null) {
  const { child: proc, done } = labChild(args, { keepStdout: true, onLine });
  const release = own(() => interruptChild(proc));
  let cut = false;
  let kill = null;
  const timer =
    timeoutS === null
      ? null
      : setTimeout(() => {
          cut = true;
          interruptChild(proc);
          kill = setTimeout(() => proc.kill('SIGKILL'), CUT_GRACE_MS);
        }, timeoutS * 1000);
  const r = await done;
  clearTimeout(timer);
  clearTimeout(kill);
  release();
  return { ...r, cut };
}

module.exports = { runLevel, judgeLevel, judgePooled, costOf, keptUp, heldSeconds, KEPT_UP, runChild: child };
