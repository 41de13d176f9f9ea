'use strict';

const { phaseRates } = require('../../artillery/phases');
const { seconds, totals, mergedFigures, errorsPerSecond, byRequestName } = require('../measure/records');
const { parseExpect, failedAnswers } = require('./expect-status');

// The run's summary as plain data, from the generator's neutral records
// (lab/measure/records.js): what summary.json holds and every rendering reads.

const round1 = (v) => (v === null || v === undefined || Number.isNaN(v) ? null : Math.round(v * 10) / 10);

// Below this share of the asked arrivals, or above this p99 send lag, a phase is flagged:
// the generator, not the system, may have set the limit.
// A closed loop at or above closedCpuPct of a core in a phase (its mean) may be what set the rate.
// A generator is the one using the CPU from generatorBusyPct of a core a thread; the machine
// is busy when its cores were machineBusyShare busy, or other programs (not the run's) used
// othersBusyPct of a core. A run at 8 arrivals a second with a 23 ms send lag blamed the
// generator, which used 4% of a core, on a machine busy with other work.
const SATURATION = Object.freeze({
  minRatio: 0.99,
  maxLagP99Ms: 5,
  minPhaseS: 5,
  closedCpuPct: 90,
  generatorBusyPct: 50,
  machineBusyShare: 0.85,
  othersBusyPct: 50,
});

// The machine's samples (lab/monitoring/sampler.js), with what other programs used: the
// machine's busy time less every process tree the run sampled (the deployment's nodes and
// the generator; a replica's workers are inside its tree) and the lab's own processes.
function machineSamplesOf(samples) {
  return samples
    .filter((s) => s.machine)
    .map((s) => {
      const ours = Object.entries(s.nodes || {})
        .filter(([name]) => !name.includes('.'))
        .reduce((a, [, n]) => a + (n.cpuPct || 0), 0);
      const others = s.machine.cpuPct - ours - (s.machine.labPct || 0);
      return { at: s.at, cpuPct: s.machine.cpuPct, othersPct: Math.max(0, others), load1: s.machine.load1 };
    });
}

// Phase windows [start, end) in epoch ms: from the generator's phase records, else planned.
function phaseWindows(phases, records, fallbackStart) {
  const starts = new Map(records.filter((r) => r.type === 'phase').map((r) => [r.index, r.at]));
  let t = starts.get(0) ?? fallbackStart;
  return phases.map((ph, i) => {
    const start = starts.get(i) ?? t;
    const end = starts.get(i + 1) ?? start + ph.duration * 1000;
    t = end;
    return { index: i, name: ph.name, start, end };
  });
}

// Arrivals launched in each phase from the per-second counts: a second that spans two
// phases is split in proportion to time; seconds before the first phase or after the last
// count in the first and last.
function launchedPerPhase(windows, secs) {
  const launched = windows.map(() => 0);
  const last = windows.length - 1;
  for (const s of secs) {
    const a = s.at;
    const b = s.at + 1000;
    windows.forEach((w, i) => {
      const start = i === 0 ? -Infinity : w.start;
      const end = i === last ? Infinity : w.end;
      const overlap = Math.max(0, Math.min(b, end) - Math.max(a, start));
      // (Arrivals: virtual users; an engine of one request a virtual user counts requests;
      // those skipped at a phase's maxVusers were launched on time too.)
      launched[i] += (((s.arrivals ?? s.launched) + (s.vusSkipped || 0)) * overlap) / 1000;
    });
  }
  return launched;
}

function generatorFigures(samples) {
  if (!samples.length) return {};
  const cpu = samples.map((s) => s.cpuPct);
  const rss = samples.map((s) => s.rssMiB);
  // Memory trend over the second half of the run (the first half includes start-up).
  const half = samples.slice(Math.floor(samples.length / 2));
  let slope = null;
  // Only over a minute or more: a short run's memory is still start-up, not a trend.
  if (half.length >= 60) {
    const t0 = half[0].at;
    const xs = half.map((s) => (s.at - t0) / 60000);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = half.reduce((a, s) => a + s.rssMiB, 0) / half.length;
    let num = 0;
    let den = 0;
    half.forEach((s, i) => ((num += (xs[i] - mx) * (s.rssMiB - my)), (den += (xs[i] - mx) ** 2)));
    slope = den ? num / den : null;
  }
  return {
    samples: samples.length,
    cpuPctMean: round1(cpu.reduce((a, b) => a + b, 0) / cpu.length),
    cpuPctMax: round1(Math.max(...cpu)),
    rssMiBStart: rss[0],
    rssMiBMax: Math.max(...rss),
    rssMiBEnd: rss[rss.length - 1],
    rssGrowthMiBPerMin: round1(slope),
  };
}

const meanOf = (samples, w, key = 'cpuPct') => {
  const inside = samples.filter((s) => s.at >= w.start && s.at <= w.end).map((s) => s[key]);
  return inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : null;
};

// CPU-seconds the generator used: its own account when it gives one, else the sampler's.
function generatorCpuS(records, samples) {
  const done = records.find((r) => r.type === 'done');
  if (done && typeof done.cpuS === 'number') return done.cpuS;
  if (samples.length < 2) return null;
  let s = 0;
  for (let i = 1; i < samples.length; i++)
    s += (samples[i].cpuPct / 100) * ((samples[i].at - samples[i - 1].at) / 1000);
  return s;
}

// run: { endpoint, scenario, deployment, target, phases, status, startedAt, endedAt,
//        resultsDir, records, generator: { name, workers, loop, precision (its plugin's) }, generatorSamples, machine,
//        expect (which statuses succeed: lab/results/expect-status.js; default below 400),
//        requestNames (the scenario's request names, in order: lab/scenario/model.js) }
// The load generator's part of the summary: what it is, its start-up, its CPU per request,
// its connections, its load nodes.
function generatorOf(run, records, { name, closed, samples, launched, done }) {
  const cpuS = generatorCpuS(records, samples);
  // From asking the generator to start to its first phase: Artillery loading, load nodes
  // coming up (tens of seconds on emulated nodes). The run's clock starts after it.
  const firstPhase = records.find((r) => r.type === 'phase' && r.index === 0);
  const asked = Date.parse(run.startedAt);
  const generator = {
    name,
    startupS: firstPhase && Number.isFinite(asked) ? round1(Math.max(0, (firstPhase.at - asked) / 1000)) : null,
    loop: closed ? 'closed' : 'open',
    workers: run.generator?.workers ?? records.find((r) => r.type === 'start')?.workers ?? 1,
    // (Each generator says how it measures: its plugin's precision, lab/generators/plugins/.)
    latencyPrecision: run.generator?.precision ?? null,
    cpuS: round1(cpuS),
    cpuMsPerRequest: cpuS !== null && launched ? Math.round((cpuS * 1e6) / launched) / 1000 : null,
    ...generatorFigures(samples),
  };
  // The lab's own engines say how they used connections (kept alive, pipelined) and how
  // many they opened: a run with 50 kept-alive connections that opened 3,000 was not one.
  const how = records.find((r) => r.type === 'start')?.connections;
  if (how) {
    generator.connections = { ...how, ...(done?.connectionsOpened ? { opened: done.connectionsOpened } : {}) };
    generator.connectionsText = connectionsText(generator.connections);
  }
  // A generator spread over load nodes (--load-nodes): a row per node, with its clock.
  const loadNodes = done?.loadNodes ?? records.find((r) => r.type === 'start')?.loadNodes ?? null;
  if (loadNodes) {
    generator.nodes = loadNodes;
    generator.nodesNote =
      "the generator ran on these nodes; each node's clock offset to the lab's was measured at start (NTP-style, from the ping with the shortest round trip) and its seconds placed on the lab's clock; CPU is the busiest node's, second by second";
  }
  return generator;
}

const SCHEMA = 'node-deploy-lab/summary/v1';

function summarize(run) {
  const records = run.records || [];
  const secs = seconds(records);
  const t = totals(records);
  const done = records.find((r) => r.type === 'done');
  const active = secs.filter((s) => s.launched + s.completed > 0);
  // The generator as the run said it (its plugin's name and loop); a run's own records name
  // it too (a rebuilt summary). A loop not said is open.
  const name = run.generator?.name ?? records.find((r) => r.type === 'start')?.generator ?? null;
  const closed = (run.generator?.loop ?? records.find((r) => r.type === 'start')?.loop ?? 'open') === 'closed';
  // A closed loop records when it started and when its last answer came, to the ms: whole
  // seconds would put a 2.9 s run of 10,000 requests at 3,333/s instead of 3,424/s.
  const start = records.find((r) => r.type === 'start');
  const exact = closed && start && done && done.at > start.at ? (done.at - start.at) / 1000 : null;
  const durationS = exact ?? (active.length ? (active[active.length - 1].at + 1000 - active[0].at) / 1000 : null);

  // (run.mergeCache: the live dashboard's, which summarizes the same growing run each second.)
  const cache = run.mergeCache || null;
  const latency = (done && done.latencyMs) || mergedFigures(secs, 'latency', cache);
  const fromSend = mergedFigures(secs, 'fromSend', cache);
  const lagAll = mergedFigures(secs, 'lag', cache);

  const windows = phaseWindows(run.phases, records, active.length ? active[0].at : Date.parse(run.startedAt));
  // A closed loop stopped by its request count ends before its phase's nominal length.
  if (exact !== null) for (const w of windows) w.end = Math.min(w.end, done.at);
  const launched = launchedPerPhase(windows, secs);
  const samples = run.generatorSamples || [];
  const machineSamples = run.machineSamples || [];
  const phases = run.phases.map((ph, i) => {
    const { from, to } = closed ? { from: null, to: null } : phaseRates(ph);
    const target = closed ? null : (from + to) / 2;
    const seconds_ = (windows[i].end - windows[i].start) / 1000;
    const achieved = seconds_ > 0 ? launched[i] / seconds_ : null;
    const inside = secs.filter((s) => s.at >= windows[i].start - 500 && s.at < windows[i].end - 500);
    const lag = mergedFigures(inside, 'lag', cache, `lag-phase-${i}`);
    return {
      name: ph.name,
      durationS: exact !== null ? round1(seconds_) : ph.duration,
      startedAt: new Date(windows[i].start).toISOString(),
      targetRate: { from, to, mean: round1(target) },
      launched: Math.round(launched[i]),
      achievedRate: round1(achieved),
      ratio: target > 0 && achieved !== null ? Math.round((achieved / target) * 1000) / 1000 : null,
      sendLagP99Ms: lag ? lag.p99 : null,
      generatorCpuPctMean: round1(meanOf(samples, windows[i])),
      // The whole machine (100 = one core) and what other programs used of it.
      ...(machineSamples.length
        ? {
            machineCpuPctMean: round1(meanOf(machineSamples, windows[i])),
            othersCpuPctMean: round1(meanOf(machineSamples, windows[i], 'othersPct')),
            load1Mean: round1(meanOf(machineSamples, windows[i], 'load1')),
          }
        : {}),
    };
  });

  // How the answers' time moved over the run: the median of its first and of its last quarter
  // of seconds (the runtime findings tell a loop waiting on something from one busy with work).
  const quarter = Math.max(1, Math.floor(active.length / 4));
  const firstQ = active.length >= 4 && !cache ? mergedFigures(active.slice(0, quarter), 'latency') : null;
  const lastQ = active.length >= 4 && !cache ? mergedFigures(active.slice(-quarter), 'latency') : null;
  const latencyTrend =
    firstQ && lastQ ? { firstQuarterMedianMs: firstQ.p50, lastQuarterMedianMs: lastQ.p50, seconds: quarter } : null;

  const generator = generatorOf(run, records, { name, closed, samples, launched: t.launched, done });
  const saturation = judgeGenerator(phases, run.status, { closed, generator, cores: run.machine?.cores ?? null });
  // Answers whose status says they failed (by default 400 or more, lab/results/expect-status.js).
  const expect = run.expect ?? parseExpect();
  const answersFailed = failedAnswers(t.codes, expect);
  // Which replica answered, as the entry named it (X-Lab-Upstream), and the entry's time to
  // the replica's answer: the server side of a service that sends no metrics of its own.
  const answeredBy = {};
  for (const sec of secs) for (const [k, v] of Object.entries(sec.upstreams || {})) answeredBy[k] = (answeredBy[k] || 0) + v;
  const upstreamTime = Object.keys(answeredBy).length ? mergedFigures(secs, 'upstream', cache) : null;
  const failedAll = answersFailed.count + (t.failed || 0);

  return {
    // Its version (docs/summary.schema.json): a change that removes, renames or retypes a
    // field bumps it; fields are added within one.
    schema: SCHEMA,
    status: run.status,
    endpoint: run.endpoint,
    scenario: run.scenario,
    deployment: run.deployment,
    target: run.target,
    resultsDir: run.resultsDir,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    durationS: exact !== null ? Math.round(durationS * 1000) / 1000 : round1(durationS),
    // Scenarios are virtual users (arrivals), each running its flow of one or more requests.
    scenariosLaunched: t.arrivals ?? t.launched,
    scenariosCompleted: t.vusCompleted ?? t.scenariosCompleted ?? t.completed,
    scenariosFailed: t.vusFailed ?? t.failed,
    // Arrivals a phase's maxVusers skipped (Artillery's vusers.skipped).
    ...(t.vusSkipped ? { scenariosSkipped: t.vusSkipped } : {}),
    // The expect plugin's checks (Artillery's plugins.expect.ok and .failed): a failed one is
    // the run's exit code 21, Artillery's.
    ...(t.expect ? { expectations: { ok: t.expect.ok || 0, failed: t.expect.failed || 0 } } : {}),
    // A processor's own counters (events.emit('counter', name, n)).
    ...(t.custom ? { customCounters: t.custom } : {}),
    requestsSent: t.launched,
    // Requests that got no answer (the errors by code below).
    requestsFailed: t.failed,
    requestsCompleted: t.completed,
    meanResponseRate: durationS ? round1(t.completed / durationS) : null,
    responseTimeMs: latency ? { ...latency, median: latency.p50 } : null,
    responseTimeFromSendMs: fromSend,
    // A closed loop sends when the previous answer arrives: it has no due times to lag behind.
    sendLagMs: closed ? null : lagAll,
    responseTimeNote: latency
      ? `${run.generator?.precision ? `${run.generator.precision}; ` : ''}percentiles from one histogram of every response, never averaged`
      : 'not available: the run ended before the generator reported its response times',
    codes: t.codes,
    errors: t.errors,
    // Each request of the scenario by name, its percentiles from its own histogram.
    requests: requestTable(secs, t, latency, run.requestNames, expect, done),
    expectStatus: expect.text,
    answersFailed,
    ...(Object.keys(answeredBy).length
      ? {
          answeredBy,
          upstreamTimeMs: upstreamTime,
          upstreamNote:
            "which replica answered and its time to answer, as the entry balancer named them (X-Lab-Upstream); the time is the entry's wait for the replica's answer, where the kind reports it",
        }
      : {}),
    // Failed answers and errors over the requests launched: "most answers failed" above 0.5.
    failedShare: t.launched
      ? Math.round((failedAll / Math.max(t.launched, (t.completed || 0) + (t.failed || 0))) * 1000) / 1000
      : null,
    phases,
    ...(latencyTrend ? { latencyTrend } : {}),
    phaseRateNote: 'achieved rates count arrivals per second, split between phases by time',
    // The busiest second: how far a ramp or a spike really got.
    peakLaunchedPerS: secs.reduce((a, r) => Math.max(a, r.launched || 0), 0),
    outages: outages(records, secs.length ? secs[0].at : null, 5, (codes) => failedAnswers(codes, expect).count),
    generator,
    saturation,
    // Artillery's own verdict, where it ran a user's script: its exit code and its checks.
    ...(done?.verdict ? { artillery: done.verdict } : {}),
    machine: run.machine,
    // The whole machine over the run: what it was busy with besides the run (other programs).
    ...(machineSamples.length ? { machineLoad: machineLoadOf(machineSamples, run.machine?.cores) } : {}),
  };
}

function machineLoadOf(samples, cores = null) {
  const mean = (k) => round1(samples.reduce((a, x) => a + (x[k] || 0), 0) / samples.length);
  const cpuPctMean = mean('cpuPct');
  return {
    cpuPctMean,
    busyShare: cores ? Math.round((cpuPctMean / (cores * 100)) * 1000) / 1000 : null,
    othersCpuPctMean: mean('othersPct'),
    load1Max: Math.max(...samples.map((x) => x.load1 ?? 0)),
    note: "CPU in % of one core over every core (100 = one core): the machine's busy time from /proc/stat, other programs' = the machine's less every process tree of the run",
  };
}

// One entry per request name: { name, method, completed, codes, errors, failedAnswers,
// responseTimeMs }. A scenario of one request is its totals (its engine keeps no names); a
// flow's names come from their own histograms, merged exactly over threads and load nodes
// (Artillery's from its own metrics, lab/generators/artillery-events.js).
function requestTable(secs, t, latency, names = null, expect, done = null) {
  const named = done?.requests && Object.keys(done.requests).length ? done.requests : byRequestName(secs);
  const rows = named
    ? Object.entries(named)
    : names && names.length === 1
      ? [[names[0], { launched: t.launched, completed: t.completed, codes: t.codes, errors: t.errors, latencyMs: latency }]]
      : [];
  // In the scenario's order where it is known, then any other name an engine reported.
  const order = (n) => (names && names.includes(n) ? names.indexOf(n) : Infinity);
  return rows
    .sort((a, b) => order(a[0]) - order(b[0]))
    .map(([name, n]) => ({
      name,
      method: /^([A-Z]+) /.exec(name)?.[1] ?? null,
      launched: n.launched,
      completed: n.completed,
      codes: n.codes,
      errors: n.errors,
      failedAnswers: failedAnswers(n.codes, expect).count,
      responseTimeMs: n.latencyMs ? { ...n.latencyMs, median: n.latencyMs.p50 } : null,
    }));
}

// The stretches of a run where requests failed (a node that went away, a replica killed):
// seconds with errors, joined when under `gapS` apart, each with when it began and ended
// (seconds since the first), how long it lasted and how many failed. Its end is when the
// system answered everything again, to the second.
function outages(records, t0, gapS = 5, failedOf = undefined) {
  if (t0 === null) return [];
  const { perSecond } = errorsPerSecond(records, failedOf);
  const ats = [...perSecond.keys()].sort((a, b) => a - b);
  const out = [];
  for (const at of ats) {
    const last = out[out.length - 1];
    if (last && at - last.endAt <= gapS * 1000) {
      last.endAt = at;
      last.failed += perSecond.get(at);
    } else out.push({ startAt: at, endAt: at, failed: perSecond.get(at) });
  }
  return out.map((o) => ({
    fromS: (o.startAt - t0) / 1000,
    toS: (o.endAt + 1000 - t0) / 1000,
    seconds: (o.endAt + 1000 - o.startAt) / 1000,
    failed: Math.round(o.failed),
  }));
}

// How a generator used its connections, in words for the terminal and the report.
function connectionsText(c) {
  if (!c.keptAlive) return 'a new connection per request';
  const opened = c.opened ? ` (${c.opened} opened)` : '';
  return c.pipelining > 1
    ? `kept-alive connections${opened}, pipelined: up to ${c.pipelining} requests in flight on each`
    : `kept-alive connections${opened}`;
}

// Says whether the load generator, not the system, set the limit. An open loop's arrivals do
// not wait for answers, so launching under the asked rate, or late (send lag), means the
// generator could not keep up. A closed loop's rate is the system's answer, unless the
// generator's CPU is what ran out.
// A phase launched short of its asked rate: under minRatio, and by more arrivals than its
// boundaries can misplace. An arrival due on a boundary may be counted in the phase beside
// it (a 5 s base at 10/s after a spike read 49 of 50, 9.8/s, while the run launched every
// arrival asked), and one arrival is never evidence of a generator's limit.
function launchedShort(p, phases) {
  if (p.ratio === null || p.ratio >= SATURATION.minRatio || !(p.targetRate?.mean >= 1)) return false;
  const i = phases.indexOf(p);
  const boundaries = (i > 0 ? 1 : 0) + (i >= 0 && i < phases.length - 1 ? 1 : 0);
  const asked = p.targetRate.mean * p.durationS;
  const launched = Number.isFinite(p.launched) ? p.launched : p.ratio * asked;
  return asked - launched > Math.max(1, boundaries);
}

function judgeGenerator(phases, status, options = {}) {
  const nodes = options.generator?.nodes;
  const lost = (nodes || []).filter((n) => n.lost);
  if (lost.length) return lostNodes(phases, lost, options);
  const verdict = judgeOne(phases, status, options);
  if (!nodes || !nodes.length || (!verdict.saturated && !/core/.test(verdict.verdict))) return verdict;
  // Which load node fell behind: the latest sender (open loop), else the busiest.
  const key = options.closed ? (n) => n.cpuPctMean ?? 0 : (n) => n.sendLagMs?.p99 ?? 0;
  const worst = nodes.reduce((a, n) => (key(n) > key(a) ? n : a), nodes[0]);
  return {
    ...verdict,
    node: worst.node,
    verdict: `${verdict.verdict}; the node that fell behind most: ${worst.node} (p99 send lag ${worst.sendLagMs?.p99 ?? '-'} ms, ${worst.cpuPctMean ?? '-'}% of a core on average)`,
  };
}

// Load nodes that went away (or were dropped for sending nonsense): the load was smaller
// than asked from then on, whatever the system did. Each is named with when it was lost and
// what it launched of its share, and the run's share not launched is given.
function lostNodes(phases, lost, { closed }) {
  const each = lost
    .map((n) => {
      const when = n.lostAtS !== null && n.lostAtS !== undefined ? ` at ${n.lostAtS} s` : '';
      const why = n.dropped ? ` (dropped: it sent nonsense, ${n.dropped})` : '';
      const share = n.asked ? `, having launched ${n.launched} of its ${n.asked}` : `, having launched ${n.launched}`;
      return `${n.node}${when}${share}${why}`;
    })
    .join('; ');
  const asked = closed ? 0 : phases.reduce((a, p) => a + (p.targetRate?.mean ?? 0) * p.durationS, 0);
  const launched = phases.reduce((a, p) => a + (p.launched || 0), 0);
  const notLaunched = asked > 0 ? Math.max(0, Math.round((1 - launched / asked) * 1000) / 10) : null;
  const share =
    notLaunched !== null
      ? `${notLaunched}% of the arrivals asked were not launched`
      : "that node's connections stopped sending";
  return {
    saturated: true,
    lostNodes: lost.map((n) => n.node),
    notLaunchedPct: notLaunched,
    verdict: `load node(s) lost: ${each}; ${share}, so the figures describe a smaller load than asked`,
  };
}

// A closed loop's generator under the busy mark, in words with its figure: "not busy" at 88%
// of a core would hide how near the mark it was. (No "core" in it: judgeGenerator reads that
// word as a warning that names a load node.)
function closedLoopCpu(phases, generator = {}) {
  const cpus = phases.map((p) => p.generatorCpuPctMean).filter(Number.isFinite);
  if (!cpus.length) return "the generator's CPU was not sampled";
  const threads = (generator.workers || 1) > 1 ? ` over its ${generator.workers} threads` : '';
  return `the generator's busiest phase averaged ${Math.max(...cpus)}% CPU${threads}, under the ${SATURATION.closedCpuPct}% read as busy`;
}

// Whether the machine, not the generator, was busy in phase p: the generator under its busy
// mark a thread, and the cores busy or other programs using a share of them. Returns the
// words, or null.
function busyMachine(p, { generator = {}, cores = null } = {}) {
  const threads = generator.workers || 1;
  if (p.generatorCpuPctMean != null && p.generatorCpuPctMean / threads >= SATURATION.generatorBusyPct) return null;
  if (p.machineCpuPctMean == null) return null;
  const share = cores ? p.machineCpuPctMean / (cores * 100) : null;
  const busy = (share !== null && share >= SATURATION.machineBusyShare) || p.othersCpuPctMean >= SATURATION.othersBusyPct;
  if (!busy) return null;
  const load = p.load1Mean != null && cores ? `, load average ${p.load1Mean} on ${cores} cores` : '';
  return `this machine was busy: its cores were ${share !== null ? `${Math.round(share * 100)}% busy` : `${p.machineCpuPctMean}% of a core busy`}, other programs than the run's using ${Math.round(p.othersCpuPctMean) / 100} of a core${load}, while the generator used ${p.generatorCpuPctMean ?? '-'}% of a core`;
}

function judgeOne(phases, status, { closed = false, generator = {}, cores = null } = {}) {
  const hottest = phases.reduce(
    (a, p) => ((p.generatorCpuPctMean ?? 0) > (a ? (a.generatorCpuPctMean ?? 0) : 0) ? p : a),
    null,
  );
  const hot = hottest && hottest.generatorCpuPctMean >= SATURATION.closedCpuPct;
  const threads = (generator.workers || 1) > 1 ? ` (${generator.workers} threads)` : '';
  if (closed) {
    return hot
      ? {
          saturated: true,
          verdict: `the load generator used ${hottest.generatorCpuPctMean}% of a core${threads}: a closed loop this busy may be what limits the rate`,
        }
      : { saturated: false, verdict: `closed loop: the rate is what the system answered; ${closedLoopCpu(phases, generator)}` };
  }
  // Arrivals are counted per second and split at phase boundaries by time, so a phase of a
  // few seconds cannot be judged (at --scale 0.05 a 1 s spike read 55% of its rate while
  // the whole run launched every arrival asked).
  const judged = phases.filter((p) => p.durationS >= SATURATION.minPhaseS);
  const flagged = judged.filter(
    (p) =>
      launchedShort(p, phases) || (p.sendLagP99Ms !== null && p.sendLagP99Ms > SATURATION.maxLagP99Ms),
  );
  if (status === 'completed' && flagged.length) {
    const p = flagged[0];
    const why = [
      launchedShort(p, phases)
        ? `launched ${p.achievedRate}/s of the ${p.targetRate.mean}/s asked`
        : null,
      p.sendLagP99Ms > SATURATION.maxLagP99Ms ? `sent late (p99 send lag ${p.sendLagP99Ms} ms)` : null,
    ]
      .filter(Boolean)
      .join(' and ');
    // Blamed on the generator only when it is the one using the CPU.
    const machine = busyMachine(p, { generator, cores });
    if (machine) {
      return {
        saturated: true,
        cause: 'machine',
        phases: flagged.map((x) => x.name),
        verdict: `in phase "${p.name}" the load generator ${why}, and ${machine}: figures past that point describe a busy machine, not the system`,
      };
    }
    return {
      saturated: true,
      cause: 'generator',
      phases: flagged.map((x) => x.name),
      verdict: `the load generator set the limit: in phase "${p.name}" it ${why}${p.generatorCpuPctMean !== null ? ` while using ${p.generatorCpuPctMean}% of a core` : ''}; figures past that point describe the generator, not the system`,
    };
  }
  if (hot) {
    return {
      saturated: false,
      verdict: `the load generator used ${hottest.generatorCpuPctMean}% of a core in phase "${hottest.name}": it kept the asked rates, but it competes with the system for this machine's CPU`,
    };
  }
  if (judged.length < phases.length) {
    return {
      saturated: false,
      verdict: `the load generator launched ${phases.reduce((a, p) => a + p.launched, 0)} arrivals; phases under ${SATURATION.minPhaseS} s are too short to judge its rate`,
    };
  }
  if (status !== 'completed' && judged.some((p) => p.ratio !== null && p.ratio < SATURATION.minRatio)) {
    return {
      saturated: false,
      verdict: `the run ended ${status}: its phases were not all run, so whether the generator kept up is not judged`,
    };
  }
  return { saturated: false, verdict: 'the load generator kept up with every phase' };
}

module.exports = {
  SCHEMA,
  summarize,
  outages,
  launchedPerPhase,
  phaseWindows,
  judgeGenerator,
  closedLoopCpu,
  machineSamplesOf,
  SATURATION,
};
