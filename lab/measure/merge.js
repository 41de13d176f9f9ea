'use strict';

const { merge, encode, figures } = require('./histogram');

// One second of a run from the parts several shards measured in it (worker threads of one
// generator, or generators on several nodes): counts added, histograms merged exactly
// (HdrHistogram `add`), percentiles read from the merged histogram: never averaged.
// part: { launched, completed, codes, errors, pending, hist: { latency, fromSend, lag } }
// (histograms encoded, as records carry them).
const sum = (objs) => {
  const out = {};
  for (const o of objs) for (const [k, v] of Object.entries(o || {})) out[k] = (out[k] || 0) + v;
  return out;
};

// A second's figures by request name (the engines keep them when a scenario has several
// names): counts added, each name's histogram merged.
function mergeNamed(parts) {
  const names = new Set(parts.flatMap((m) => Object.keys(m.requests || {})));
  if (!names.size) return null;
  const out = {};
  for (const name of names) {
    const ps = parts.map((m) => m.requests?.[name]).filter(Boolean);
    const h = merge(ps.map((p) => p.latency ?? p.hist?.latency));
    out[name] = {
      launched: ps.reduce((a, p) => a + (p.launched || 0), 0),
      completed: ps.reduce((a, p) => a + (p.completed || 0), 0),
      codes: sum(ps.map((p) => p.codes)),
      errors: sum(ps.map((p) => p.errors)),
      latencyMs: figures(h),
      hist: { latency: encode(h) },
    };
  }
  return out;
}

function mergeSecond(parts, at) {
  const latency = merge(parts.map((m) => m.hist?.latency));
  const fromSend = merge(parts.map((m) => m.hist?.fromSend));
  const lag = merge(parts.map((m) => m.hist?.lag));
  const upstream = merge(parts.map((m) => m.hist?.upstream));
  const upstreams = sum(parts.map((m) => m.upstreams));
  const named = mergeNamed(parts);
  const tls = mergeTls(parts);
  return {
    type: 'second',
    at,
    launched: parts.reduce((a, m) => a + (m.launched || 0), 0),
    completed: parts.reduce((a, m) => a + (m.completed || 0), 0),
    // Virtual users started (arrivals) and ended, as their engines counted them (an engine
    // of one request a virtual user counts none: its arrivals are its requests).
    ...(parts.some((m) => m.arrivals !== undefined)
      ? {
          arrivals: parts.reduce((a, m) => a + (m.arrivals ?? m.launched ?? 0), 0),
          vusCompleted: parts.reduce((a, m) => a + (m.vusCompleted || 0), 0),
          vusFailed: parts.reduce((a, m) => a + (m.vusFailed || 0), 0),
        }
      : {}),
    codes: sum(parts.map((m) => m.codes)),
    errors: sum(parts.map((m) => m.errors)),
    // Arrivals skipped at a phase's maxVusers; the expect plugin's checks; a processor's
    // own counters: added.
    ...(parts.some((m) => m.vusSkipped) ? { vusSkipped: parts.reduce((a, m) => a + (m.vusSkipped || 0), 0) } : {}),
    ...(parts.some((m) => m.expect) ? { expect: sum(parts.map((m) => m.expect)) } : {}),
    ...(parts.some((m) => m.custom) ? { custom: sum(parts.map((m) => m.custom)) } : {}),
    pending: parts.reduce((a, m) => a + (m.pending || 0), 0),
    latencyMs: figures(latency),
    sendLagMs: figures(lag),
    // Which replica answered (the entry's X-Lab-Upstream) and its time, when the entry said.
    ...(Object.keys(upstreams).length ? { upstreams, upstreamMs: figures(upstream) } : {}),
    // The entry's failed answers (5xx) by the replica it named: whose requests a rollout dropped.
    ...(parts.some((m) => m.upstreamFails) ? { upstreamFails: sum(parts.map((m) => m.upstreamFails)) } : {}),
    ...(named ? { requests: named } : {}),
    ...(tls ? { tls: tls.counts } : {}),
    hist: {
      latency: encode(latency),
      fromSend: encode(fromSend),
      lag: encode(lag),
      upstream: encode(upstream),
      ...(tls ? tls.hist : {}),
    },
  };
}

// A second's TLS figures (--tls), when any part has them: new connections, resumed sessions,
// protocols, and the connect, handshake and first-byte histograms merged.
function mergeTls(parts) {
  const withTls = parts.filter((m) => m.tls || m.hist?.ttfb);
  if (!withTls.length) return null;
  const h = (k) => merge(withTls.map((m) => m.hist?.[k]).filter(Boolean));
  return {
    counts: {
      handshakes: withTls.reduce((a, m) => a + (m.tls?.handshakes || 0), 0),
      offered: withTls.reduce((a, m) => a + (m.tls?.offered || 0), 0),
      resumed: withTls.reduce((a, m) => a + (m.tls?.resumed || 0), 0),
      protocols: sum(withTls.map((m) => m.tls?.protocols)),
    },
    hist: { connect: encode(h('connect')), handshake: encode(h('handshake')), ttfb: encode(h('ttfb')) },
  };
}

// Merges seconds from `sources` as they come: a second is complete when every source has
// sent it or ended; complete seconds go to `emit` in order. Sources may send seconds in any
// order; `end(source)` says a source has sent its last.
function secondMerger(sources, emit, { at }) {
  const parts = new Map(); // sec -> Map(source -> part)
  const ended = new Set();
  let nextSec = 0;
  const ready = () => {
    for (;;) {
      const got = parts.get(nextSec);
      if (!got) {
        // Every source has ended and nothing is left: done.
        return;
      }
      const waiting = sources.filter((s) => !ended.has(s) && !got.has(s));
      if (waiting.length) return;
      parts.delete(nextSec);
      emit(mergeSecond([...got.values()], at(nextSec)));
      nextSec += 1;
    }
  };
  return {
    add(source, sec, part) {
      if (sec < nextSec) return; // a late part of a second already merged (a source that lagged): dropped
      if (!parts.has(sec)) parts.set(sec, new Map());
      parts.get(sec).set(source, part);
      ready();
    },
    end(source) {
      ended.add(source);
      ready();
    },
    // What is left at the end (an interrupted run): each second merged from what arrived.
    flush() {
      for (const sec of [...parts.keys()].sort((a, b) => a - b)) {
        if (sec < nextSec) continue;
        nextSec = sec;
        for (const s of sources) ended.add(s);
        ready();
      }
    },
  };
}

module.exports = { mergeSecond, secondMerger, mergeNamed };
