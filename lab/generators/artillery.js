'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { encodeObjects } = require('../../artillery/objects');
const { toYaml, stepOf } = require('../../artillery/script');
const runArtillery = require('./artillery-run');

const { ROOT } = require('../paths');

// Artillery behind the seam: the lab runs the plain script with its processor (per-second
// arrivals, answers and response-time histograms) and plugin (each 10 s interval as it
// happens), and turns what Artillery reports into the lab's neutral records.

// Artillery's percentiles come from its own sketch and can read above its max (p99 907 ms
// with max 906 ms was seen on /bbox2): capped here, so p99 <= max holds for every engine.
function capped(s) {
  if (!s) return null;
  const c = (v) => (v === undefined || v === null ? null : Math.min(v, s.max));
  return {
    count: s.count,
    min: s.min,
    mean: s.mean,
    p50: c(s.median),
    p75: c(s.p75),
    p90: c(s.p90),
    p95: c(s.p95),
    p99: c(s.p99),
    max: s.max,
  };
}

const pick = (counters, prefix) => {
  const out = {};
  for (const [k, v] of Object.entries(counters || {})) if (k.startsWith(prefix)) out[k.slice(prefix.length)] = v;
  return out;
};

// The records of one Artillery event (from the lab plugin's events.jsonl).
function recordsOfEvent(e) {
  if (e.type === 'phaseStarted') return [{ type: 'phase', index: e.phase.index, name: e.phase.name, at: e.at }];
  if (e.type !== 'stats') return [];
  const iv = e.stats;
  const bySec = new Map();
  const get = (sec) => {
    if (!bySec.has(sec))
      bySec.set(sec, { type: 'second', at: sec * 1000, launched: 0, completed: 0, codes: {}, errors: {} });
    return bySec.get(sec);
  };
  for (const [k, v] of Object.entries(iv.counters || {})) {
    const m = /^lab\.(arrivals|responses)\.(\d+)$/.exec(k);
    if (m) get(Number(m[2]))[m[1] === 'arrivals' ? 'launched' : 'completed'] += v;
    const up = /^lab\.up\.(\d+)\.(.+)$/.exec(k);
    if (up) {
      const sec = get(Number(up[1]));
      sec.upstreams = sec.upstreams || {};
      sec.upstreams[up[2]] = (sec.upstreams[up[2]] || 0) + v;
    }
  }
  for (const [k, v] of Object.entries(iv.summaries || {})) {
    const m = /^lab\.rt\.(\d+)$/.exec(k);
    if (m) get(Number(m[1])).latencyMs = capped(v);
  }
  const out = [...bySec.values()].sort((a, b) => a.at - b.at);
  // Codes and errors are only known per interval.
  const codes = pick(iv.counters, 'http.codes.');
  const errors = pick(iv.counters, 'errors.');
  if (Object.keys(codes).length || Object.keys(errors).length) {
    out.push({ type: 'interval', at: iv.period, durationMs: 10000, codes, errors });
  }
  return out;
}

// The final record, from Artillery's aggregate report (null when the run was cut short).
function doneRecord(report, interrupted) {
  const agg = report && report.aggregate;
  if (!agg) return { type: 'done', at: Date.now(), interrupted, precision: 'ms' };
  const c = agg.counters || {};
  return {
    type: 'done',
    at: agg.lastMetricAt || Date.now(),
    interrupted,
    precision: 'ms',
    totals: {
      launched: c['vusers.created'] || 0,
      completed: c['http.responses'] || 0,
      scenariosCompleted: c['vusers.completed'] || 0,
      failed: c['vusers.failed'] || 0,
      codes: pick(c, 'http.codes.'),
      errors: pick(c, 'errors.'),
    },
    latencyMs: capped(agg.summaries && agg.summaries['http.response_time']),
  };
}

// Every record of a finished (or cut) run, from its events and report.
function recordsOf(events, report, interrupted = false) {
  return [
    { type: 'start', generator: 'artillery' },
    ...events.flatMap(recordsOfEvent),
    doneRecord(report, interrupted),
  ];
}

// The lab's processor hears every answer of a step.
const withAfter = (step) => {
  const [method] = Object.keys(step);
  return { [method]: { ...step[method], afterResponse: 'labResponse' } };
};

// plan: { target, path, request, objects | null, phases, timeoutS, statsd: { host, port, prefix } | null }
function startArtillery(plan, { dir, onRecord = () => {} }) {
  const file = (name) => path.join(dir, name);
  const script = {
    config: {
      target: plan.target,
      phases: plan.phases,
      http: { timeout: plan.timeoutS },
      processor: path.join(ROOT, 'artillery', 'plugins', 'lab-processor.js'),
      plugins: { lab: { file: file('events.jsonl'), ...(plan.statsd ? { statsd: plan.statsd } : {}) } },
      // Many objects: each virtual user draws one (artillery/objects.js).
      ...(plan.objects ? { variables: { labObjects: encodeObjects(plan.objects) } } : {}),
    },
    scenarios: [
      {
        name: plan.name || 'lab',
        beforeScenario: plan.objects ? ['labArrival', 'labPickObject'] : 'labArrival',
        flow: [withAfter(stepOf(plan.objects ? `${plan.path}{{ labObject }}` : plan.path, plan.request))],
      },
    ],
  };
  fs.writeFileSync(file('artillery-run.yml'), toYaml(script));
  const events = [];
  const records = [];
  const emit = (r) => {
    records.push(r);
    onRecord(r);
  };
  emit({ type: 'start', at: Date.now(), generator: 'artillery', workers: 1 });
  const run = runArtillery({
    scriptFile: file('artillery-run.yml'),
    outFile: file('artillery.json'),
    eventsFile: file('events.jsonl'),
    logFile: file('artillery.log'),
    onEvent: (e) => {
      events.push(e);
      for (const r of recordsOfEvent(e)) emit(r);
    },
  });
  let stopped = false;
  const done = run.done.then(
    ({ report }) => {
      emit(doneRecord(report, false));
      return { records, status: 'completed', report };
    },
    (err) => {
      emit(doneRecord(null, stopped));
      if (stopped) return { records, status: 'interrupted' };
      throw err;
    },
  );
  return {
    pid: run.pid,
    workers: 1,
    done,
    stop: () => {
      stopped = true;
      run.stop();
      return done.catch(() => ({ records, status: 'interrupted' }));
    },
  };
}

module.exports = { startArtillery, recordsOf };
