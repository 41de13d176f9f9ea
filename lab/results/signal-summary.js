'use strict';

const { gather, totals, mergedFigures } = require('../measure/records');

const round1 = (v) => Math.round(v * 10) / 10;

// A signaling run as seed 002's k6 table reads it, from the signal engine's records
// (lab/generators/signal-process.js): connect time, messages sent and received, sessions,
// failures, relay latency. Percentiles come from the merged histograms of every second,
// never averaged; relay latency is timed from the sender's stamp to the receiving
// participant, both in the generator's process (one clock).
// (records: the run's, or what gather() read of them.)
function signalSummary(records, plan = {}) {
  const g = Array.isArray(records) ? gather(records) : records;
  const { secs } = g;
  const t = totals(g);
  const durationS = secs.length ? (secs[secs.length - 1].at + 1000 - secs[0].at) / 1000 : 0;
  const sum = (key) => secs.reduce((a, s) => a + (s.signal?.[key] || 0), 0);
  const sent = sum('sent');
  const received = sum('received');
  return {
    participants: {
      target: Math.max(0, ...(plan.stages || []).map((st) => st.target)),
      peak: secs.reduce((a, s) => Math.max(a, s.signal?.active || 0), 0),
      started: t.launched,
    },
    sessions: t.completed,
    failures: t.failed,
    failureCodes: t.errors,
    connectMs: mergedFigures(secs, 'latency'),
    messages: {
      sent,
      received,
      sentPerS: durationS ? round1(sent / durationS) : null,
      receivedPerS: durationS ? round1(received / durationS) : null,
    },
    relayMs: mergedFigures(secs, 'relay'),
    room: { size: plan.roomSize ?? null, updateEveryS: plan.updateEveryS ?? null },
    note: 'relay latency: from the sending participant to the receiving one, through the deployment',
  };
}

// The k6-like rows: [category, metric, value, avg, min, median, max, p90, p95, p99].
function signalRows(s) {
  const f = (x) => (x === null || x === undefined ? '-' : x);
  const lat = (name, m) =>
    m ? ['', name, '-', f(m.mean), f(m.min), f(m.p50), f(m.max), f(m.p90), f(m.p95), f(m.p99)] : ['', name, 'no data'];
  return [
    ['WebSocket', 'sessions', s.sessions, '-', '-', '-', '-', '-', '-', '-'],
    ['', 'failures', s.failures, '-', '-', '-', '-', '-', '-', '-'],
    lat('connecting (ms)', s.connectMs),
    ['', 'messages sent', s.messages.sent, `${f(s.messages.sentPerS)}/s`, '-', '-', '-', '-', '-', '-'],
    ['', 'messages received', s.messages.received, `${f(s.messages.receivedPerS)}/s`, '-', '-', '-', '-', '-', '-'],
    lat('relay latency (ms)', s.relayMs),
    [
      'Participants',
      'peak connected',
      s.participants.peak,
      '-',
      '-',
      '-',
      `${s.participants.target} asked`,
      '-',
      '-',
      '-',
    ],
  ];
}

const SIGNAL_HEAD = ['category', 'metric', 'value', 'avg', 'min', 'median', 'max', 'p90', 'p95', 'p99'];

module.exports = { signalSummary, signalRows, SIGNAL_HEAD };
