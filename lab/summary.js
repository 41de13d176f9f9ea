'use strict';

const { phaseRates } = require('../artillery/phases');

const INTERVAL_MS = 10000; // Artillery 2's fixed reporting period

// Sums Artillery counters over intervals (counters add up; percentiles do not, and are
// never combined here).
function addCounters(list) {
  const out = {};
  for (const c of list) for (const [k, v] of Object.entries(c || {})) out[k] = (out[k] || 0) + v;
  return out;
}

function pickPrefix(counters, prefix) {
  const out = {};
  for (const [k, v] of Object.entries(counters)) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
}

const round1 = (v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);

// Phase windows: from Artillery's own phaseStarted events when present, else planned.
function phaseWindows(phases, phaseEvents, fallbackStart) {
  const starts = new Map(phaseEvents.filter((e) => e.type === 'phaseStarted').map((e) => [e.phase.index, e.at]));
  let t = starts.get(0) ?? fallbackStart;
  return phases.map((ph, i) => {
    const start = starts.get(i) ?? t;
    const end = starts.get(i + 1) ?? start + ph.duration * 1000;
    t = end;
    return { index: i, name: ph.name, start, end };
  });
}

// Per-second series from the lab processor's counters: { [second]: count } for `name`.
function perSecond(intervals, name) {
  const out = new Map();
  const prefix = `${name}.`;
  for (const iv of intervals) {
    for (const [k, v] of Object.entries(iv.counters || {})) {
      if (k.startsWith(prefix)) {
        const sec = Number(k.slice(prefix.length));
        out.set(sec, (out.get(sec) || 0) + v);
      }
    }
  }
  return out;
}

// Arrivals launched in each phase, from the per-second arrival counts (a second that spans
// two phases is split in proportion to time). Without them (a script run without the lab
// processor), from Artillery's 10 s intervals the same way, which blurs short phases.
function launchedPerPhase(windows, intervals) {
  const launched = windows.map(() => 0);
  // Open-ended at both ends: a phaseStarted event is stamped when the launcher hears of it,
  // just after the worker began, so the first arrivals fall before the first window.
  const last = windows.length - 1;
  const spread = (count, a, b) =>
    windows.forEach((w, i) => {
      const start = i === 0 ? -Infinity : w.start;
      const end = i === last ? Infinity : w.end;
      const overlap = Math.max(0, Math.min(b, end) - Math.max(a, start));
      launched[i] += (count * overlap) / (b - a);
    });
  const seconds = perSecond(intervals, 'lab.arrivals');
  if (seconds.size) {
    for (const [sec, n] of seconds) spread(n, sec * 1000, sec * 1000 + 1000);
    return launched;
  }
  for (const iv of intervals) {
    const created = (iv.counters && iv.counters['vusers.created']) || 0;
    if (!created) continue;
    const a = Math.max(iv.period, iv.firstMetricAt || iv.period);
    const b = Math.min(iv.period + INTERVAL_MS, Math.max(iv.lastMetricAt || 0, a + 1));
    spread(created, a, b);
  }
  return launched;
}

function generatorFigures(samples) {
  if (!samples.length) return null;
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

const meanOf = (samples, w) => {
  const inside = samples.filter((s) => s.at >= w.start && s.at <= w.end).map((s) => s.cpuPct);
  return inside.length ? inside.reduce((a, b) => a + b, 0) / inside.length : null;
};

// The run's summary as plain data: what summary.json holds and every rendering reads.
// run: { endpoint, scenario, deployment, target, phases, status, startedAt, endedAt,
//        resultsDir, report (Artillery JSON or null), events, generatorSamples, machine }
function summarize(run) {
  const intervals = run.events.filter((e) => e.type === 'stats').map((e) => e.stats);
  const agg = run.report ? run.report.aggregate : null;
  const counters = agg ? agg.counters : addCounters(intervals.map((i) => i.counters));
  const rt = agg && agg.summaries ? agg.summaries['http.response_time'] : null;
  const first = agg ? agg.firstMetricAt : intervals.length ? intervals[0].firstMetricAt : null;
  const last = agg ? agg.lastMetricAt : intervals.length ? intervals[intervals.length - 1].lastMetricAt : null;
  const durationS = first && last ? (last - first) / 1000 : null;
  const responses = counters['http.responses'] || 0;

  const windows = phaseWindows(run.phases, run.events, first || Date.parse(run.startedAt));
  const launched = launchedPerPhase(windows, intervals);
  const samples = run.generatorSamples || [];
  const phases = run.phases.map((ph, i) => {
    const { from, to } = phaseRates(ph);
    const target = (from + to) / 2;
    const seconds = (windows[i].end - windows[i].start) / 1000;
    const achieved = seconds > 0 ? launched[i] / seconds : null;
    return {
      name: ph.name,
      durationS: ph.duration,
      startedAt: new Date(windows[i].start).toISOString(),
      targetRate: { from, to, mean: round1(target) },
      launched: Math.round(launched[i]),
      achievedRate: round1(achieved),
      ratio: target > 0 && achieved !== null ? Math.round((achieved / target) * 100) / 100 : null,
      generatorCpuPctMean: round1(meanOf(samples, windows[i])),
    };
  });

  const generator = generatorFigures(samples);
  const saturation = judgeGenerator(phases, run.status);

  return {
    status: run.status,
    endpoint: run.endpoint,
    scenario: run.scenario,
    deployment: run.deployment,
    target: run.target,
    resultsDir: run.resultsDir,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    durationS: round1(durationS),
    scenariosLaunched: counters['vusers.created'] || 0,
    scenariosCompleted: counters['vusers.completed'] || 0,
    scenariosFailed: counters['vusers.failed'] || 0,
    requestsSent: counters['http.requests'] || 0,
    requestsCompleted: responses,
    meanResponseRate: durationS ? round1(responses / durationS) : null,
    responseTimeMs: rt
      ? { min: rt.min, median: rt.median, p95: rt.p95, p99: rt.p99, max: rt.max, mean: rt.mean, count: rt.count }
      : null,
    responseTimeNote: rt
      ? "from Artillery's final report, whose percentiles come from one histogram of every response"
      : "not available: the run ended before Artillery's final report (per-interval figures are in the intervals)",
    codes: pickPrefix(counters, 'http.codes.'),
    errors: pickPrefix(counters, 'errors.'),
    phases,
    phaseRateNote: 'achieved rates count arrivals per second, split between phases by time',
    generator,
    saturation,
    intervals: intervals.length,
    machine: run.machine,
  };
}

// Says whether the load generator, not the system, set the limit. Artillery's arrivals are
// open-loop: a slow system does not slow them, so launching well under the asked rate means
// the generator could not keep up. Its CPU near a full core says why.
function judgeGenerator(phases, status) {
  // Arrivals are counted per second and split at phase boundaries by time, so a phase of a
  // few seconds cannot be judged (at --scale 0.05 a 1 s spike read 55% of its rate while
  // the whole run launched every arrival asked).
  const judged = phases.filter((p) => p.durationS >= 5);
  const short = judged.filter((p) => p.ratio !== null && p.ratio < 0.9 && p.targetRate.mean >= 1);
  // Judged on each phase's mean: Artillery's own start-up briefly takes a full core.
  const hottest = phases.reduce(
    (a, p) => ((p.generatorCpuPctMean ?? 0) > (a ? (a.generatorCpuPctMean ?? 0) : 0) ? p : a),
    null,
  );
  const hot = hottest && hottest.generatorCpuPctMean >= 90;
  if (status === 'completed' && short.length) {
    const p = short[0];
    return {
      saturated: true,
      verdict: `the load generator set the limit: in phase "${p.name}" it launched ${p.achievedRate}/s of the ${p.targetRate.mean}/s asked${p.generatorCpuPctMean !== null ? ` while using ${p.generatorCpuPctMean}% of a core` : ''}; figures past that point describe the generator, not the system`,
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
      verdict: `the load generator launched ${phases.reduce((a, p) => a + p.launched, 0)} arrivals; phases under 5 s are too short to judge its rate`,
    };
  }
  return { saturated: false, verdict: 'the load generator kept up with every phase' };
}

module.exports = { summarize, addCounters, launchedPerPhase, phaseWindows, judgeGenerator, perSecond };
