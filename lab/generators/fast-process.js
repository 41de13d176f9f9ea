'use strict';

// The lab's own generator process (started by lab/generators/fast.js with a plan file): it
// runs the plan's worker threads, merges their seconds into one record each (histograms
// merged exactly, never averaged) and sends the records to the lab over IPC. One process,
// so the resource sampler sees the generator as one node whatever its number of threads.
const fs = require('node:fs');
const path = require('node:path');
const { EventEmitter } = require('node:events');
const { Worker } = require('node:worker_threads');
const { merge, encode, figures } = require('./histogram');
const { phaseOffsets } = require('./schedule');

const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const clock = () => performance.timeOrigin + performance.now();
// Threads start in well under 200 ms here; the first arrival is due after that.
const t0 = Math.ceil(clock()) + 300;
const W = plan.workers;

const send = (record) => process.send && process.send(record);
send({ type: 'start', at: t0, generator: plan.mode === 'open' ? 'fast' : 'closed', workers: W });

// Phase records at the phases' due starts (open loop); the closed loop is one phase.
const { starts } = phaseOffsets(plan.phases);
const phaseTimers = plan.phases.map((ph, index) =>
  setTimeout(
    () => send({ type: 'phase', index, name: ph.name, at: t0 + starts[index] }),
    Math.max(0, t0 + starts[index] - clock()),
  ),
);

const parts = new Map(); // sec -> [message per worker]
const ended = new Set();
const latestPending = new Array(W).fill(0);
const sum = (objs) => {
  const out = {};
  for (const o of objs) for (const [k, v] of Object.entries(o)) out[k] = (out[k] || 0) + v;
  return out;
};
let nextSec = 0;
function emitReady() {
  for (;;) {
    const got = parts.get(nextSec) || [];
    const waiting = [...Array(W).keys()].filter((w) => !ended.has(w) && !got.some((m) => m.worker === w));
    if (!got.length || waiting.length) return;
    parts.delete(nextSec);
    const latency = merge(got.map((m) => m.latency));
    const fromSend = merge(got.map((m) => m.fromSend));
    const lag = merge(got.map((m) => m.lag));
    send({
      type: 'second',
      at: t0 + nextSec * 1000,
      launched: got.reduce((a, m) => a + m.launched, 0),
      completed: got.reduce((a, m) => a + m.completed, 0),
      codes: sum(got.map((m) => m.codes)),
      errors: sum(got.map((m) => m.errors)),
      pending: latestPending.reduce((a, b) => a + b, 0),
      latencyMs: figures(latency),
      sendLagMs: figures(lag),
      hist: { latency: encode(latency), fromSend: encode(fromSend), lag: encode(lag) },
    });
    nextSec += 1;
  }
}

// CPU from the first arrival on: what the requests cost, without the process's start-up
// (loading Node, the histogram library and the threads: ~0.3 s, reported apart).
let cpuAtStart = null;
setTimeout(() => (cpuAtStart = process.cpuUsage()), Math.max(0, t0 - clock()));

let stopping = false;
// A shard's messages: from a worker thread, or, for a single shard, from this very thread
// (a thread of its own added ~0.4 ms at p90 to /ping at 200/s against a plain loop: measured
// with bench/generators.js).
function startShard(shard) {
  const data = { ...plan, shard, of: W, t0 };
  if (W > 1) return new Worker(path.join(__dirname, 'fast-worker.js'), { workerData: data });
  const toShard = new EventEmitter();
  const fromShard = new EventEmitter();
  require('./fast-worker')(data, {
    postMessage: (m) => fromShard.emit('message', m),
    on: (event, fn) => toShard.on(event, fn),
  });
  return {
    on: (event, fn) => fromShard.on(event, fn),
    postMessage: (m) => setImmediate(() => toShard.emit('message', m)),
    terminate: async () => {},
  };
}

const workers = [...Array(W).keys()].map((shard) => {
  const w = startShard(shard);
  w.on('message', (m) => {
    if (m.type === 'second') {
      latestPending[shard] = m.pending;
      if (!parts.has(m.sec)) parts.set(m.sec, []);
      parts.get(m.sec).push({ ...m, worker: shard });
      emitReady();
    } else if (m.type === 'end') {
      ended.add(shard);
      emitReady();
      if (ended.size === W) done();
    }
  });
  w.on('error', (err) => {
    process.stderr.write(`generator worker ${shard} failed: ${err.stack}\n`);
    ended.add(shard);
    if (ended.size === W) done();
  });
  return w;
});

function done() {
  // Seconds some worker never reached (an interrupted run) are merged from what arrived.
  for (const sec of [...parts.keys()].sort((a, b) => a - b)) {
    if (sec >= nextSec) {
      nextSec = sec;
      for (let w = 0; w < W; w++) ended.add(w);
      emitReady();
    }
  }
  phaseTimers.forEach(clearTimeout);
  const cpu = process.cpuUsage();
  const base = cpuAtStart || { user: 0, system: 0 };
  send({
    type: 'done',
    at: clock(),
    interrupted: stopping,
    cpuS: (cpu.user - base.user + cpu.system - base.system) / 1e6,
    startupCpuS: (base.user + base.system) / 1e6,
  });
  Promise.all(workers.map((w) => w.terminate())).then(() => process.exit(0));
}

// SIGTERM (the lab stopping the run): stop sending, report what was measured, exit.
process.on('SIGTERM', () => {
  if (stopping) return;
  stopping = true;
  for (const w of workers) w.postMessage({ type: 'stop' });
  setTimeout(() => process.exit(0), 3000).unref();
});
// Ctrl-C reaches the whole terminal's process group: the lab decides when this one stops.
process.on('SIGINT', () => {});
