'use strict';

const { merge, figures } = require('./histogram');

// The neutral records every load generator emits, one JSON object a line in records.jsonl.
// Summary, progress, reports, compare and the study read only these.
//   { type: 'start', at, generator, workers, connections? { keptAlive, pipelining? } }
//   { type: 'phase', index, name, at }                         a phase began
//   { type: 'second', at, launched, completed, codes, errors, pending,
//     latencyMs, sendLagMs, upstreams?, upstreamMs?, hist }    one second of the run
//     (upstreams: answers by the replica the entry named, X-Lab-Upstream; upstreamFails: its
//     5xx answers by that replica; upstreamMs: the entry's time to the replica's answer, its
//     histogram in hist.upstream)
//   { type: 'interval', at, durationMs, codes, errors }        counts an engine knows only
//                                                              per interval (Artillery: 10 s)
//   { type: 'done', at, interrupted, cpuS, totals?, latencyMs?, precision?, connectionsOpened?,
//     loopLateMs? { p50, p99 } (the lab's engine: how late its loop ran, so read its answers) }
// `at` is epoch ms. latencyMs/sendLagMs are { count, min, mean, stdev, p50..p99, max } in ms;
// `hist` holds the second's encoded HdrHistograms (latency from the due time, from the
// actual send, send lag), which merge exactly into any window's percentiles.

const add = (a, b) => {
  const out = { ...a };
  for (const [k, v] of Object.entries(b || {})) out[k] = (out[k] || 0) + v;
  return out;
};

// A run's records read once (issue 72): its seconds (below), its intervals, its start and done
// records and when each phase began. The summary's sections (lab/results/summary.js,
// lab/run/summary.js) read what this one pass gathered, instead of each scanning the records
// again for what it needs.
function gather(records) {
  const by = new Map();
  const intervals = [];
  // (Each phase's start: the last record of its index, as several workers each write one; the
  // first phase's first record too, when the load began.)
  const phaseStarts = new Map();
  let firstPhaseAt;
  let start = null;
  let done = null;
  for (const r of records) {
    if (r.type === 'second') addSecond(by, r);
    else if (r.type === 'interval') intervals.push(r);
    else if (r.type === 'phase') {
      phaseStarts.set(r.index, r.at);
      if (r.index === 0) firstPhaseAt ??= r.at;
    } else if (r.type === 'start') start ??= r;
    else if (r.type === 'done') done ??= r;
  }
  const secs = [...by.values()].sort((a, b) => a.at - b.at);
  return { secs, intervals, phaseStarts, firstPhaseAt, start, done };
}

// The seconds in time order, one per `at` (an engine that reports a second in two parts has
// its counts added; its latency figures cannot be, and the part with more answers is kept).
function seconds(records) {
  const by = new Map();
  for (const r of records) if (r.type === 'second') addSecond(by, r);
  return [...by.values()].sort((a, b) => a.at - b.at);
}

function addSecond(by, r) {
  const prev = by.get(r.at);
  if (!prev) {
    by.set(r.at, { ...r, codes: { ...r.codes }, errors: { ...r.errors } });
    return;
  }
  const keep = (prev.latencyMs?.count ?? 0) >= (r.latencyMs?.count ?? 0) ? prev : r;
  by.set(r.at, {
    ...keep,
    launched: prev.launched + r.launched,
    completed: prev.completed + r.completed,
    codes: add(prev.codes, r.codes),
    errors: add(prev.errors, r.errors),
    ...(prev.upstreams || r.upstreams ? { upstreams: add(prev.upstreams, r.upstreams) } : {}),
    ...(prev.upstreamFails || r.upstreamFails ? { upstreamFails: add(prev.upstreamFails, r.upstreamFails) } : {}),
    hist: prev.hist && r.hist ? null : keep.hist,
  });
}

const sumOf = (list, key) => list.reduce((a, r) => a + (r[key] || 0), 0);

// Launched, completed, codes and errors over the whole run (records, or what gather() read).
function totals(records) {
  const { done, secs, intervals } = Array.isArray(records) ? gather(records) : records;
  if (done && done.totals) return done.totals;
  let codes = {};
  let errors = {};
  for (const r of [...secs, ...intervals]) {
    codes = add(codes, r.codes);
    errors = add(errors, r.errors);
  }
  const failed = Object.values(errors).reduce((a, b) => a + b, 0);
  const out = { launched: sumOf(secs, 'launched'), completed: sumOf(secs, 'completed'), failed, codes, errors };
  const skipped = sumOf(secs, 'vusSkipped');
  if (skipped) out.vusSkipped = skipped;
  const expect = secs.reduce((a, r) => (r.expect ? add(a, r.expect) : a), null);
  if (expect) out.expect = expect;
  const custom = secs.reduce((a, r) => (r.custom ? add(a, r.custom) : a), null);
  if (custom) out.custom = custom;
  // Virtual users, where the engine ran flows (arrivals; else each request was one).
  if (secs.some((s) => s.arrivals !== undefined)) {
    out.arrivals = secs.reduce((a, s) => a + (s.arrivals ?? s.launched ?? 0), 0);
    out.vusCompleted = sumOf(secs, 'vusCompleted');
    out.vusFailed = sumOf(secs, 'vusFailed');
  }
  return out;
}

// Each request name's figures over the seconds (the engines keep them when a scenario has
// several names): counts added, histograms merged exactly. null when none were kept.
function byRequestName(secs) {
  const names = new Map();
  for (const s of secs) {
    for (const [name, n] of Object.entries(s.requests || {})) {
      let t = names.get(name);
      if (!t) names.set(name, (t = { launched: 0, completed: 0, codes: {}, errors: {}, hists: [] }));
      t.launched += n.launched || 0;
      t.completed += n.completed || 0;
      t.codes = add(t.codes, n.codes);
      t.errors = add(t.errors, n.errors);
      if (n.hist?.latency) t.hists.push(n.hist.latency);
    }
  }
  if (!names.size) return null;
  const out = {};
  for (const [name, t] of names) {
    const { hists, ...counts } = t;
    out[name] = { ...counts, latencyMs: figures(merge(hists)) };
  }
  return out;
}

// One window's latency figures from the seconds' histograms (`which`: latency, fromSend or
// lag), merged exactly; null when the engine keeps no histograms.
// cache (optional, a Map): for figures read again and again over seconds that only grow (the
// live dashboard's summary each second), the merged histogram of the seconds seen so far is
// kept under `key`, and only the new seconds are merged into it.
function mergedFigures(secs, which, cache = null, key = which) {
  if (!secs.length || secs.some((s) => s.launched + s.completed > 0 && !(s.hist && which in s.hist))) return null;
  // (A second with nothing launched nor answered may carry no histogram at all: an engine that
  // counts per interval, Artillery, writes such seconds; they add nothing.)
  if (!cache) return figures(merge(secs.map((s) => s.hist?.[which])));
  let c = cache.get(key);
  const valid = c && secs.length >= c.n && secs[0].at === c.firstAt && secs[c.n - 1].at === c.lastAt;
  if (!valid) c = { n: 0, firstAt: secs[0].at, lastAt: null, hist: merge([]) };
  const fresh = secs.slice(c.n);
  if (fresh.length) c.hist.add(merge(fresh.map((s) => s.hist?.[which])));
  c.n = secs.length;
  c.lastAt = secs[secs.length - 1].at;
  cache.set(key, c);
  return figures(c.hist);
}

// A histogram only some seconds carry (a TLS run's connect, handshake and first-byte times:
// the seconds with new connections have them), merged from those that do; null when none.
function presentFigures(secs, which) {
  const hs = secs.map((s) => s.hist?.[which]).filter(Boolean);
  return hs.length ? figures(merge(hs)) : null;
}

// Failures per second: errors and, with `failedOf(codes)` (the answers whose status counts
// as failed, lab/results/expect-status.js), failed answers; exact from the seconds, or an
// interval's spread evenly over its seconds (then `exact` is false). (records, or what
// gather() read.)
function errorsPerSecond(records, failedOf = () => 0) {
  const { secs, intervals } = Array.isArray(records) ? gather(records) : records;
  const out = new Map();
  let exact = true;
  for (const s of secs) {
    const n = Object.values(s.errors || {}).reduce((a, b) => a + b, 0) + failedOf(s.codes);
    if (n) out.set(s.at, (out.get(s.at) || 0) + n);
  }
  for (const iv of intervals) {
    const n = Object.values(iv.errors || {}).reduce((a, b) => a + b, 0) + failedOf(iv.codes);
    if (!n) continue;
    exact = false;
    const secsIn = Math.max(1, Math.round(iv.durationMs / 1000));
    for (let i = 0; i < secsIn; i++) out.set(iv.at + i * 1000, (out.get(iv.at + i * 1000) || 0) + n / secsIn);
  }
  return { perSecond: out, exact };
}

module.exports = {
  gather,
  presentFigures,
  seconds,
  totals,
  mergedFigures,
  errorsPerSecond,
  byRequestName,
  add,
};
