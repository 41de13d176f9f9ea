'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { toYaml } = require('../scenario/to-artillery');
const runArtillery = require('./artillery-run');

// Artillery behind the seam: the lab runs the script (a user's own, or its catalogue's) with
// its plugin (per-second arrivals, requests, answers and answer-time histograms, per-name
// figures, each 10 s interval as it happens), and turns what Artillery reports into the
// lab's neutral records (lab/measure/records.js).

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

// The records of one Artillery event (from the lab plugin's events.jsonl): the lab's
// per-second counters and histograms (artillery/plugins/artillery-plugin-lab/hooks.js).
const PER_SECOND = { arrivals: 'arrivals', sent: 'launched', responses: 'completed' };
function recordsOfEvent(e) {
  if (e.type === 'phaseStarted') return [{ type: 'phase', index: e.phase.index, name: e.phase.name, at: e.at }];
  if (e.type !== 'stats') return [];
  const iv = e.stats;
  const bySec = new Map();
  const get = (sec) => {
    if (!bySec.has(sec))
      bySec.set(sec, { type: 'second', at: sec * 1000, launched: 0, completed: 0, arrivals: 0, codes: {}, errors: {} });
    return bySec.get(sec);
  };
  for (const [k, v] of Object.entries(iv.counters || {})) {
    const m = /^lab\.(arrivals|sent|responses)\.(\d+)$/.exec(k);
    if (m) get(Number(m[2]))[PER_SECOND[m[1]]] += v;
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

// Each request name's figures over the run, from the aggregate's lab.rq.NAME.* metrics.
function byName(agg) {
  const out = {};
  const entry = (name) =>
    (out[name] = out[name] || { launched: 0, completed: 0, codes: {}, errors: {}, latencyMs: null });
  for (const [k, v] of Object.entries(agg.counters || {})) {
    let m;
    if ((m = /^lab\.rq\.(.+)\.sent$/.exec(k))) entry(m[1]).launched += v;
    else if ((m = /^lab\.rq\.(.+)\.codes\.(\d+)$/.exec(k))) {
      const e = entry(m[1]);
      e.codes[m[2]] = (e.codes[m[2]] || 0) + v;
      e.completed += v;
    } else if ((m = /^lab\.rq\.(.+)\.errors\.([^.]+)$/.exec(k))) {
      const e = entry(m[1]);
      e.errors[m[2]] = (e.errors[m[2]] || 0) + v;
    }
  }
  for (const [k, v] of Object.entries(agg.summaries || {})) {
    const m = /^lab\.rq\.(.+)\.rt$/.exec(k);
    if (m) entry(m[1]).latencyMs = capped(v);
  }
  return out;
}

// The Playwright engine's figures (browser.*: a page's answer codes, the browser's requests,
// each page's web vitals by URL), or null for a run without a browser. Each vital's
// percentiles are Artillery's sketch's, held within its min and max (a sketch's median can
// read past either).
function browserOf(agg) {
  const c = agg.counters || {};
  if (!Object.keys(c).some((k) => k.startsWith('browser.'))) return null;
  const codes = pick(c, 'browser.page.codes.');
  const vitals = {};
  for (const [k, v] of Object.entries(agg.summaries || {})) {
    const m = /^browser\.page\.([A-Za-z]+)\.(.+)$/.exec(k);
    if (!m) continue;
    const held = (x) => (x === undefined || x === null ? null : Math.max(v.min, Math.min(v.max, x)));
    vitals[m[1]] = vitals[m[1]] || {};
    vitals[m[1]][m[2]] = {
      count: v.count,
      min: v.min,
      p50: held(v.median),
      p95: held(v.p95),
      p99: held(v.p99),
      max: v.max,
    };
  }
  return {
    pages: Object.values(codes).reduce((a, b) => a + b, 0),
    codes,
    httpRequests: c['browser.http_requests'] || 0,
    vitals,
    note: "the Playwright engine's: pages loaded and their codes, each page's web vitals by URL (ms; CLS unitless), Artillery's sketch held within its min and max",
  };
}

// The ws and socketio engines' messages, counted as the lab's engine counts them (each one
// a request): sent, and done: a ws message once written (Artillery counts it as it writes
// it), a socketio emit unless its wait failed (the socketio engine's own errors; its
// response-time histogram records a response's emit twice, so it cannot count them). A run
// of messages then says how many it sent, where Artillery's HTTP counters alone said none.
const SOCKETIO_ERRORS = ['data is not valid', 'response timeout', 'Failed match', 'invalid arguments'];
function messagesOf(agg) {
  const c = agg.counters || {};
  const ws = c['websocket.messages_sent'] || 0;
  const emits = c['socketio.emit'] || 0;
  const failed = SOCKETIO_ERRORS.reduce((a, k) => a + (c[`errors.${k}`] || 0), 0);
  return { sent: ws + emits, done: ws + Math.max(0, emits - failed) };
}

// The final record, from Artillery's aggregate report (null when the run was cut short).
function doneRecord(report, interrupted) {
  const agg = report && report.aggregate;
  if (!agg) return { type: 'done', at: Date.now(), interrupted, precision: 'ms' };
  const c = agg.counters || {};
  const errors = pick(c, 'errors.');
  const browser = browserOf(agg);
  const m = messagesOf(agg);
  return {
    type: 'done',
    at: agg.lastMetricAt || Date.now(),
    interrupted,
    precision: 'ms',
    totals: {
      launched: (c['http.requests'] || 0) + m.sent,
      completed: (c['http.responses'] || 0) + m.done,
      arrivals: c['vusers.created'] || 0,
      vusCompleted: c['vusers.completed'] || 0,
      vusFailed: c['vusers.failed'] || 0,
      failed: Object.values(errors).reduce((a, b) => a + b, 0),
      codes: pick(c, 'http.codes.'),
      errors,
    },
    latencyMs: capped(agg.summaries && agg.summaries['http.response_time']),
    requests: byName(agg),
    ...(browser ? { browser } : {}),
  };
}

// plan: { script (an Artillery script object), from (the user's file, if any), target,
// timeoutS, statsd: { host, port, prefix } | null }
function startArtillery(plan, { dir, onRecord = () => {} }) {
  const file = (name) => path.join(dir, name);
  const script = {
    ...plan.script,
    config: {
      ...plan.script.config,
      plugins: {
        ...(plan.script.config.plugins || {}),
        lab: { file: file('events.jsonl'), ...(plan.statsd ? { statsd: plan.statsd } : {}) },
      },
    },
  };
  const header = plan.from
    ? [`${plan.from}, as the lab runs it: its target, its phases scaled, the lab's plugin`]
    : null;
  fs.writeFileSync(file('artillery-run.yml'), toYaml(script, header));
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
    waitForExit: Boolean(plan.script.after),
    caFile: plan.caFile ?? null,
    insecure: Boolean(plan.insecure),
    env: plan.env,
    scriptDir: plan.from ? path.dirname(plan.from) : null,
    onEvent: (e) => {
      events.push(e);
      for (const r of recordsOfEvent(e)) emit(r);
    },
  });
  let stopped = false;
  const done = run.done.then(
    ({ report, verdict }) => {
      emit({ ...doneRecord(report, false), ...(verdict ? { verdict } : {}) });
      return { records, status: 'completed', report, verdict };
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

module.exports = {
  browserOf,
  startArtillery,
  recordsOfEvent,
  doneRecord,
};
