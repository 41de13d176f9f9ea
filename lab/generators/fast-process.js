'use strict';

// The lab's own generator (open or closed loop): it runs the plan's worker threads, merges
// their seconds into one record each (lab/measure/merge.js: histograms merged exactly,
// never averaged) and sends the records on. Run as a child process of the lab (started by
// lab/generators/fast.js with a plan file; records over IPC: one process, so the resource
// sampler sees the generator as one node whatever its number of threads), or inside a
// shard on another node (lab/generators/remote-shard.js), where it runs the threads
// `shardOffset` .. `shardOffset + workers - 1` of `shardTotal`, from a `t0` the coordinator
// set.
const path = require('node:path');
const { EventEmitter } = require('node:events');
const { Worker } = require('node:worker_threads');
const { secondMerger } = require('../measure/merge');
const { phaseOffsets } = require('./schedule');

const clock = () => performance.timeOrigin + performance.now();

// A script's before and after sections (Artillery's): the before one runs first, once, and
// its variables go to every virtual user; the after one runs once the run is over. Neither
// one's requests are the run's (Artillery does not count them either); a before section that
// fails fails the run, as in Artillery. (Load nodes run no sections: refused up front.)
function runGenerator(plan, send) {
  const model = plan.model;
  // --dotenv's values (the model's env): this process's environment under its own, as
  // Artillery's dotenv loads them (nothing overridden); its threads inherit it.
  for (const [k, v] of Object.entries(model?.env || {})) if (process.env[k] === undefined) process.env[k] = v;
  if (!model || (!model.before && !model.after) || plan.shardTotal) return runPlan(plan, send);
  let inner = null;
  let stopped = false;
  const done = (async () => {
    let baseVars = {};
    if (model.before) {
      const r = await runHook(plan, 'before', {});
      if (!r.ok) {
        send({ type: 'fatal', at: clock(), message: `the script's before section failed (${r.code})` });
        return;
      }
      baseVars = r.vars;
    }
    if (stopped) return;
    inner = runPlan({ ...plan, baseVars }, send);
    await inner.done;
    if (model.after && !stopped) await runHook(plan, 'after', baseVars);
  })();
  return {
    stop() {
      stopped = true;
      return inner ? inner.stop().then(() => done) : done;
    },
    done,
  };
}

// One section's virtual user, in this thread: resolves { ok, code, vars }.
function runHook(plan, hook, baseVars) {
  return new Promise((resolve) => {
    require('./fast-worker')(
      { ...plan, shard: 0, of: 1, t0: clock(), hook, baseVars },
      {
        postMessage: (m) => m.type === 'hook' && resolve(m),
        on: () => {},
      },
    );
  });
}

// How the run used its connections (./judge.js says it): kept alive (pipelined), or a new one
// per request; over HTTP/2 (--http2) sessions, the closed loop's kept for the run with
// --streams N each, the open loop's one per virtual user unless --keepalive.
function connectionsOf(plan) {
  const http2 = Boolean(plan.tls?.http2);
  const kept = plan.keepalive || (http2 && plan.mode === 'closed');
  const inFlight = http2 ? plan.tls.streams || plan.pipelining || 1 : plan.pipelining || 1;
  return kept
    ? { keptAlive: true, pipelining: inFlight, ...(http2 ? { http2 } : {}) }
    : { keptAlive: false, ...(http2 ? { http2 } : {}) };
}

// plan: as fast.js writes it, with optional t0, shardOffset, shardTotal. send(record): where
// records go. Returns { stop(), done: Promise }.
function runPlan(plan, send) {
  // Threads start in well under 200 ms here; the first arrival is due after that.
  // (A script's processor is loaded by every thread first: a second more for it.)
  const t0 = plan.t0 ?? Math.ceil(clock()) + (plan.model?.processor ? 1300 : 300);
  const W = plan.workers;
  const offset = plan.shardOffset ?? 0;
  const total = plan.shardTotal ?? W;
  let resolveDone;
  const done = new Promise((r) => (resolveDone = r));

  send({
    type: 'start',
    at: t0,
    generator: plan.mode === 'open' ? 'fast' : 'closed',
    workers: W,
    // How its connections were used, for the report: a new one per request (Artillery's
    // way, the default) or kept alive, optionally pipelined.
    connections: connectionsOf(plan),
  });

  // Phase records at the phases' due starts (open loop); the closed loop is one phase.
  const { starts } = phaseOffsets(plan.phases);
  const phaseTimers = plan.phases.map((ph, index) =>
    setTimeout(
      () => send({ type: 'phase', index, name: ph.name, at: t0 + starts[index] }),
      Math.max(0, t0 + starts[index] - clock()),
    ),
  );

  const threads = [...Array(W).keys()];
  const merger = secondMerger(threads, send, { at: (sec) => t0 + sec * 1000 });

  // CPU from the first arrival on: what the requests cost, without the process's start-up
  // (loading Node, the histogram library and the threads: ~0.3 s, reported apart).
  let cpuAtStart = null;
  setTimeout(() => (cpuAtStart = process.cpuUsage()), Math.max(0, t0 - clock()));

  let stopping = false;
  // A thread's messages: from a worker thread, or, for a single one, from this very thread
  // (a thread of its own added ~0.4 ms at p90 to /ping at 200/s against a plain loop:
  // measured with bench/generators.js).
  function startShard(w) {
    const data = { ...plan, shard: offset + w, of: total, t0 };
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

  const ended = new Set();
  let opened = 0;
  // (The latest thread's loop, for each figure: the run's answers were read no later.)
  let loopLateMs = null;
  const workers = threads.map((w) => {
    const worker = startShard(w);
    worker.on('message', (m) => {
      if (m.type === 'second') {
        merger.add(w, m.sec, {
          ...m,
          hist: {
            latency: m.latency,
            fromSend: m.fromSend,
            lag: m.lag,
            upstream: m.upstream,
            ...(m.connect ? { connect: m.connect, handshake: m.handshake } : {}),
            ...(m.ttfb ? { ttfb: m.ttfb } : {}),
          },
        });
      } else if (m.type === 'end') {
        if (m.connections) opened += m.connections;
        if (m.loopLateMs)
          loopLateMs = {
            p50: Math.max(loopLateMs?.p50 ?? 0, m.loopLateMs.p50),
            p99: Math.max(loopLateMs?.p99 ?? 0, m.loopLateMs.p99),
          };
        ended.add(w);
        merger.end(w);
        if (ended.size === W) finish();
      }
    });
    worker.on('error', (err) => {
      process.stderr.write(`generator worker ${w} failed: ${err.stack}\n`);
      ended.add(w);
      merger.end(w);
      if (ended.size === W) finish();
    });
    return worker;
  });

  function finish() {
    // Seconds some worker never reached (an interrupted run) are merged from what arrived.
    merger.flush();
    phaseTimers.forEach(clearTimeout);
    const cpu = process.cpuUsage();
    const base = cpuAtStart || { user: 0, system: 0 };
    send({
      type: 'done',
      at: clock(),
      interrupted: stopping,
      cpuS: (cpu.user - base.user + cpu.system - base.system) / 1e6,
      startupCpuS: (base.user + base.system) / 1e6,
      ...(opened ? { connectionsOpened: opened } : {}),
      ...(loopLateMs ? { loopLateMs } : {}),
    });
    Promise.all(workers.map((w) => w.terminate())).then(() => resolveDone());
  }

  // Stop sending, report what was measured.
  const stop = () => {
    if (stopping) return done;
    stopping = true;
    for (const w of workers) w.postMessage({ type: 'stop' });
    return done;
  };
  return { stop, done };
}

// As the lab's child process: the plan file in argv, records over IPC.
if (require.main === module) {
  const fs = require('node:fs');
  const plan = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const run = runGenerator(plan, (record) => process.send && process.send(record));
  run.done.then(() => process.exit(0));
  // SIGTERM (the lab stopping the run): stop sending, report what was measured, exit.
  process.on('SIGTERM', () => {
    run.stop();
    setTimeout(() => process.exit(0), 3000).unref();
  });
  // Ctrl-C reaches the whole terminal's process group: the lab decides when this one stops.
  process.on('SIGINT', () => {});
}

module.exports = { runGenerator };
