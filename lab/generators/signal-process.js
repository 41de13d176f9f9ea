'use strict';

// The lab's WebSocket participants (seed 002's k6 script, on the generator seam). Each
// participant gets a room id from /room?size=N (N participants share one room), connects to
// /signal, joins, offers to every peer already there, answers each offer, sends ICE
// candidates, then stays connected and sends an update (a candidate to a known peer) every
// updateEveryS. The number of participants follows the stages like k6's ramping VUs: it
// moves linearly from one stage's target to the next.
//
// Records (lab/measure/records.js), one 'second' a second: launched = participants
// started, completed = sessions (joined), errors by code, pending = connected participants,
// latencyMs = connect time; `signal` = { active, sent, received, relayMs }; hist = the
// second's encoded connect and relay histograms. Relay latency is timed from the sender's
// stamp to the receiver (one process, one clock).
const fs = require('node:fs');
const http = require('node:http');
const WebSocket = require('ws');
const { create, encode, figures } = require('../measure/histogram');

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const send = (r) => process.send(r);
const us = (ms) => Math.max(1, Math.round(ms * 1000));

const target = new URL(plan.target);
const wsUrl = `${target.protocol === 'https:' ? 'wss' : 'ws'}://${target.host}/signal`;
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const SDP = 'v=0 '.repeat(60); // an offer's size, roughly

let sec = null;
function fresh(at) {
  return { at, launched: 0, completed: 0, errors: {}, sent: 0, received: 0, connect: create(), relay: create() };
}
const t0 = Date.now();
sec = fresh(t0);
const countError = (code) => (sec.errors[code] = (sec.errors[code] || 0) + 1);

function roomId() {
  return new Promise((resolve, reject) => {
    const req = http.get(
      { host: target.hostname, port: target.port, path: `/room?size=${plan.roomSize}`, agent, timeout: plan.timeoutMs },
      (res) => {
        let body = '';
        res.on('data', (d) => (body += d));
        res.on('end', () => {
          if (res.statusCode !== 200)
            return reject(Object.assign(new Error('room'), { code: `HTTP_${res.statusCode}` }));
          return resolve(JSON.parse(body).room);
        });
      },
    );
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
  });
}

const participants = new Set();
let startedTotal = 0;

function start() {
  sec.launched += 1;
  startedTotal += 1;
  const from = plan.sourceAddresses && plan.sourceAddresses[startedTotal % plan.sourceAddresses.length];
  const p = { ws: null, peers: new Set(), id: null, closing: false, timer: null };
  participants.add(p);
  const out = (msg) => {
    if (p.ws.readyState !== WebSocket.OPEN) return;
    p.ws.send(JSON.stringify(msg));
    sec.sent += 1;
  };
  // performance.now(): sub-millisecond, and sender and receiver are this one process.
  const relay = (type, to, extra = {}) => out({ type, to, data: { sentAt: performance.now(), ...extra } });
  roomId().then(
    (room) => {
      if (p.closing) return;
      const began = performance.now();
      p.ws = new WebSocket(wsUrl, { handshakeTimeout: plan.timeoutMs, ...(from ? { localAddress: from } : {}) });
      p.ws.on('open', () => {
        sec.connect.recordValue(us(performance.now() - began));
        out({ type: 'join', room });
      });
      p.ws.on('message', (data) => {
        sec.received += 1;
        const m = JSON.parse(String(data));
        if (m.data && m.data.sentAt) sec.relay.recordValue(us(performance.now() - m.data.sentAt));
        if (m.type === 'joined') {
          sec.completed += 1;
          p.id = m.id;
          for (const peer of m.peers) {
            p.peers.add(peer);
            relay('offer', peer, { sdp: SDP });
          }
          // Occasional updates, first at a random point of the period so they spread.
          const every = plan.updateEveryS * 1000;
          p.timer = setTimeout(function update() {
            const peers = [...p.peers];
            if (peers.length) relay('candidate', peers[Math.floor(Math.random() * peers.length)], { update: true });
            p.timer = setTimeout(update, every);
          }, Math.random() * every);
        } else if (m.type === 'peer-joined') p.peers.add(m.id);
        else if (m.type === 'peer-left') p.peers.delete(m.id);
        else if (m.type === 'offer') {
          p.peers.add(m.from);
          relay('answer', m.from, { sdp: SDP });
          for (let i = 0; i < plan.candidates; i++) relay('candidate', m.from, { i });
        } else if (m.type === 'answer') {
          for (let i = 0; i < plan.candidates; i++) relay('candidate', m.from, { i });
        } else if (m.type === 'error') countError(`SIGNAL_${m.code}`);
      });
      p.ws.on('error', (err) => countError(err.code || 'EWEBSOCKET'));
      p.ws.on('close', (code) => {
        clearTimeout(p.timer);
        participants.delete(p);
        if (!p.closing) countError(`CLOSED_${code}`);
      });
    },
    (err) => {
      participants.delete(p);
      countError(err.code || 'EROOM');
    },
  );
  return p;
}

function stop(p) {
  p.closing = true;
  clearTimeout(p.timer);
  participants.delete(p);
  if (p.ws) p.ws.close(1000);
}

// The number of participants wanted `s` seconds in: linear within each stage, from the
// previous stage's target (0 at first).
const totalS = plan.stages.reduce((a, st) => a + st.duration, 0);
function wanted(s) {
  let at = 0;
  let from = 0;
  for (const st of plan.stages) {
    if (s < at + st.duration) return Math.round(from + ((st.target - from) * (s - at)) / st.duration);
    at += st.duration;
    from = st.target;
  }
  return from;
}

send({ type: 'start', at: t0, generator: 'signal', workers: 1 });
let stageIndex = -1;
let tickN = 0;
let stopping = false;

// Participants join over each second in steps of 100 ms, so a ramp is not a burst.
function tick() {
  const s = (Date.now() - t0) / 1000;
  let at = 0;
  for (const [i, st] of plan.stages.entries()) {
    if (s >= at && s < at + st.duration && i !== stageIndex) {
      stageIndex = i;
      send({ type: 'phase', index: i, name: st.name, at: Date.now() });
    }
    at += st.duration;
  }
  const want = wanted(s);
  const have = participants.size;
  if (want > have) for (let i = 0; i < want - have; i++) start();
  else if (want < have) for (const p of [...participants].slice(want)) stop(p);
  tickN += 1;
  if (tickN % 10 === 0) flush();
  if (s >= totalS || stopping) return finish();
  return setTimeout(tick, 100);
}

function flush() {
  const at = sec.at;
  const prev = sec;
  sec = fresh(at + 1000);
  send({
    type: 'second',
    at,
    launched: prev.launched,
    completed: prev.completed,
    codes: {},
    errors: prev.errors,
    pending: participants.size,
    latencyMs: figures(prev.connect),
    signal: { active: participants.size, sent: prev.sent, received: prev.received, relayMs: figures(prev.relay) },
    hist: { latency: encode(prev.connect), relay: encode(prev.relay) },
  });
}

function finish() {
  flush();
  for (const p of [...participants]) stop(p);
  agent.destroy();
  send({ type: 'done', at: Date.now(), interrupted: stopping, cpuS: process.cpuUsage().user / 1e6 });
  setTimeout(() => process.exit(0), 200);
}

process.on('SIGTERM', () => (stopping = true));
process.on('SIGINT', () => (stopping = true));
tick();
