'use strict';

const { phaseRates } = require('../../artillery/phases');
const { gather, totals, mergedFigures, presentFigures, errorsPerSecond, byRequestName } = require('../measure/records');
const { parseExpect, failedAnswers } = require('./expect-status');
const { describeGenerator, judgeGenerator } = require('../generators/judge');

// The run's summary as plain data, from the generator's neutral records
// (lab/measure/records.js): what summary.json holds and every rendering reads.

const round1 = (v) => (v === null || v === undefined || Number.isNaN(v) ? null : Math.round(v * 10) / 10);

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

// Phase windows [start, end) in epoch ms: from the generator's phase records (when each
// began, as gather() read them), else planned.
function phaseWindows(phases, starts, fallbackStart) {
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

const meanOf = (samples, w, key = 'cpuPct') => {
  const inside = samples.filter((s) => s.at >= w.start && s.at <= w.end).map((s) => s[key]);
  return inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : null;
};

const SCHEMA = 'node-deploy-lab/summary/v1';

// Each phase of the run: its asked and achieved rates, its send lag, and the generator's and
// the machine's CPU over its window.
function phaseFigures(run, { secs, phaseStarts, active, closed, exact, done, cache, samples }) {
  const windows = phaseWindows(run.phases, phaseStarts, active.length ? active[0].at : Date.parse(run.startedAt));
  // A closed loop stopped by its request count ends before its phase's nominal length.
  if (exact !== null) for (const w of windows) w.end = Math.min(w.end, done.at);
  const launched = launchedPerPhase(windows, secs);
  const machineSamples = run.machineSamples || [];
  return run.phases.map((ph, i) => {
    const { from, to } = closed ? { from: null, to: null } : phaseRates(ph);
    const target = closed ? null : (from + to) / 2;
    const seconds_ = (windows[i].end - windows[i].start) / 1000;
    const achieved = seconds_ > 0 ? launched[i] / seconds_ : null;
    const inside = secs.filter((s) => s.at >= windows[i].start - 500 && s.at < windows[i].end - 500);
    const lag = mergedFigures(inside, 'lag', cache, `lag-phase-${i}`);
    const latency = mergedFigures(inside, 'latency', cache, `latency-phase-${i}`);
    return {
      name: ph.name,
      durationS: exact !== null ? round1(seconds_) : ph.duration,
      startedAt: new Date(windows[i].start).toISOString(),
      targetRate: { from, to, mean: round1(target) },
      launched: Math.round(launched[i]),
      achievedRate: round1(achieved),
      ratio: target > 0 && achieved !== null ? Math.round((achieved / target) * 1000) / 1000 : null,
      sendLagP99Ms: lag ? lag.p99 : null,
      // (What the send lag is weighed against: lab/generators/judge.js.)
      responseP99Ms: latency ? latency.p99 : null,
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
}

// How the answers' time moved over the run: the median of its first and of its last quarter
// of seconds (the runtime findings tell a loop waiting on something from one busy with work).
function latencyTrendOf(active, cache) {
  if (active.length < 4 || cache) return null;
  const quarter = Math.max(1, Math.floor(active.length / 4));
  const firstQ = mergedFigures(active.slice(0, quarter), 'latency');
  const lastQ = mergedFigures(active.slice(-quarter), 'latency');
  return firstQ && lastQ ? { firstQuarterMedianMs: firstQ.p50, lastQuarterMedianMs: lastQ.p50, seconds: quarter } : null;
}

// run: { endpoint, scenario, deployment, target, phases, status, startedAt, endedAt,
//        resultsDir, records (or gathered: what gather() read of them), generator: { name, workers, loop, precision (its plugin's) }, generatorSamples, machine,
//        expect (which statuses succeed: lab/results/expect-status.js; default below 400),
//        requestNames (the scenario's request names, in order: lab/scenario/model.js) }
function summarize(run) {
  // One pass over the records (lab/measure/records.js gather); every section reads from it.
  const g = run.gathered ?? gather(run.records || []);
  const { secs, done, start } = g;
  const t = totals(g);
  const active = secs.filter((s) => s.launched + s.completed > 0);
  // The generator as the run said it (its plugin's name and loop); a run's own records name
  // it too (a rebuilt summary). A loop not said is open.
  const name = run.generator?.name ?? start?.generator ?? null;
  const closed = (run.generator?.loop ?? start?.loop ?? 'open') === 'closed';
  // A closed loop records when it started and when its last answer came, to the ms: whole
  // seconds would put a 2.9 s run of 10,000 requests at 3,333/s instead of 3,424/s.
  const exact = closed && start && done && done.at > start.at ? (done.at - start.at) / 1000 : null;
  const durationS = exact ?? (active.length ? (active[active.length - 1].at + 1000 - active[0].at) / 1000 : null);

  // (run.mergeCache: the live dashboard's, which summarizes the same growing run each second.)
  const cache = run.mergeCache || null;
  const latency = (done && done.latencyMs) || mergedFigures(secs, 'latency', cache);
  const fromSend = mergedFigures(secs, 'fromSend', cache);
  const lagAll = mergedFigures(secs, 'lag', cache);

  const samples = run.generatorSamples || [];
  const phases = phaseFigures(run, { secs, phaseStarts: g.phaseStarts, active, closed, exact, done, cache, samples });
  const latencyTrend = latencyTrendOf(active, cache);

  const generator = describeGenerator(run, g, { name, closed, samples, launched: t.launched });
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
    ...(tlsOf(secs) ? { tls: tlsOf(secs) } : {}),
    ...(latencyTrend ? { latencyTrend } : {}),
    phaseRateNote: 'achieved rates count arrivals per second, split between phases by time',
    // The busiest second: how far a ramp or a spike really got.
    peakLaunchedPerS: secs.reduce((a, r) => Math.max(a, r.launched || 0), 0),
    outages: outages(g, secs.length ? secs[0].at : null, 5, (codes) => failedAnswers(codes, expect).count),
    generator,
    saturation,
    // Artillery's own verdict, where it ran a user's script: its exit code and its checks.
    ...(done?.verdict ? { artillery: done.verdict } : {}),
    // The Playwright engine's pages and web vitals (--generator artillery runs it).
    ...(done?.browser ? { browser: done.browser } : {}),
    machine: run.machine,
    // The whole machine over the run: what it was busy with besides the run (other programs).
    ...(run.machineSamples?.length ? { machineLoad: machineLoadOf(run.machineSamples, run.machine?.cores) } : {}),
  };
}

// A TLS run's figures (--tls, lab/generators/tls-client.js): the protocol ALPN chose (the most
// used, and every one), the new connections, how many offered a session (one an earlier
// connection's ticket gave) and the share of them that resumed one, and
// the times to connect, to finish the handshake (for requests that opened a connection) and
// to the answer's first byte (every request). Null for a plain HTTP run.
function tlsOf(secs) {
  const withTls = secs.filter((s) => s.tls || s.hist?.ttfb);
  if (!withTls.length) return null;
  const protocols = {};
  let handshakes = 0;
  let resumed = 0;
  let offered = 0;
  for (const s of withTls) {
    handshakes += s.tls?.handshakes || 0;
    offered += s.tls?.offered || 0;
    resumed += s.tls?.resumed || 0;
    for (const [k, v] of Object.entries(s.tls?.protocols || {})) protocols[k] = (protocols[k] || 0) + v;
  }
  const protocol = Object.entries(protocols).sort((a, b) => b[1] - a[1])[0]?.[0] ?? null;
  return {
    protocol,
    protocols,
    handshakes,
    offered,
    resumed,
    resumedShare: handshakes ? Math.round((resumed / handshakes) * 1000) / 1000 : null,
    // Of the connections that offered a session, the share the entry took: what the entry
    // does, apart from how soon the first ticket came.
    resumedOfOffered: offered ? Math.round((resumed / offered) * 1000) / 1000 : null,
    connectMs: presentFigures(withTls, 'connect'),
    handshakeMs: presentFigures(withTls, 'handshake'),
    firstByteMs: presentFigures(withTls, 'ttfb'),
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
// system answered everything again, to the second. (records: or what gather() read of them.)
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

module.exports = {
  SCHEMA,
  summarize,
  outages,
  launchedPerPhase,
  phaseWindows,
  machineSamplesOf,
};
