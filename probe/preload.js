'use strict';

// The runtime probe: preloaded into every Node process of a deployment's service (NODE_OPTIONS
// --require, set by the lab's runtimes: lab/probe/env.js), the lab's own service and yours
// alike, with no change to its code. Once a second it sends one small UDP datagram to the
// lab's collector (lab/probe/collector.js) with what this process's runtime did in that second:
//   the event loop's delay (perf_hooks.monitorEventLoopDelay: how late its timer ran, beyond
//     its RESOLUTION_MS) as a count, p50, p99, max and a histogram in log buckets, so the lab
//     can merge seconds and processes into a run's p99 without averaging percentiles;
//   its utilization (performance.eventLoopUtilization: the time the loop was busy, ms);
//   garbage collection by kind (count and ms, from the 'gc' performance entries);
//   the heap used and total, RSS, active handles, and the HTTP requests it began.
// It never blocks the app: the socket and timer are unref'd (they never keep it alive), a send
// is fire-and-forget, and any failure turns the probe off rather than reach the app. It does
// nothing unless LAB_PROBE (host:port) is set, in a package manager's own process (npm run
// start is npm, then your service), in a worker thread, or when loaded twice.
// On the collector's word (--profile), and only then, it also profiles its process: a UDP
// answer from the collector's own port, { op: 'profile', id, ms, us, to }, starts V8's sampling
// profiler (node:inspector, loaded only then) every `us` microseconds for `ms`, and the profile
// (Chrome DevTools' .cpuprofile) goes to the collector over TCP at `to`, after one line that
// says whose it is. The profiler runs in the process's own thread, as the probe does.
// This file is self-contained (Node's own modules only): the lab copies it into images.

const RESOLUTION_MS = 10;
const INTERVAL_MS = 1000;
const VERSION = 1;

// Log buckets of the loop's delay: bucket 0 holds delays up to 0.1 ms, bucket i >= 1 those
// above 0.1 * 2^((i-1)/8) up to 0.1 * 2^(i/8) ms (9% wide), the last one all above 60 s.
const BUCKETS_PER_DOUBLING = 8;
const FIRST_MS = 0.1;
const LAST_BUCKET = Math.ceil(BUCKETS_PER_DOUBLING * Math.log2(60000 / FIRST_MS)) + 1;
function bucketOf(ms) {
  if (!(ms > FIRST_MS)) return 0;
  const i = Math.ceil(BUCKETS_PER_DOUBLING * Math.log2(ms / FIRST_MS) - 1e-9);
  return Math.min(LAST_BUCKET, Math.max(1, i));
}
const bucketUpperMs = (i) => (i <= 0 ? FIRST_MS : FIRST_MS * 2 ** (i / BUCKETS_PER_DOUBLING));

// The processes of package managers and npx: their loops wait on the service they started.
const TOOL = /(^|[\\/])(npm|npx|yarn|pnpm|corepack)(-cli)?(\.c?js)?$/;

function role(cluster) {
  if (cluster.isWorker) return { role: 'worker', worker: cluster.worker?.id ?? null };
  if (Object.keys(cluster.workers || {}).length) return { role: 'primary', worker: null };
  return { role: 'process', worker: null };
}

// Parses "host:port" (a name, IPv4 or [IPv6]); null when it is not one.
function parseAddress(text) {
  const m = /^\[?([^\]]+?)\]?:(\d{1,5})$/.exec(String(text || '').trim());
  if (!m || Number(m[2]) < 1 || Number(m[2]) > 65535) return null;
  return { host: m[1], port: Number(m[2]) };
}

// The delay histogram of one interval as [count, max, p50, p99, { bucket: count }] in ms
// beyond the timer's resolution; HDR's percentile points give each bucket its share.
function delayOf(h) {
  const count = h.count;
  if (!count) return [0, 0, 0, 0, {}];
  const ms = (ns) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const buckets = {};
  let before = 0;
  for (const [pct, ns] of h.percentiles) {
    const share = pct - before;
    if (share > 0) {
      const b = bucketOf(ms(ns));
      buckets[b] = (buckets[b] || 0) + (share / 100) * count;
    }
    before = pct;
  }
  for (const b of Object.keys(buckets)) buckets[b] = Math.round(buckets[b] * 100) / 100;
  const r = (v) => Math.round(v * 100) / 100;
  return [count, r(ms(h.max)), r(ms(h.percentile(50))), r(ms(h.percentile(99))), buckets];
}

function start() {
  const address = parseAddress(process.env.LAB_PROBE);
  if (!address) return null;
  const { isMainThread } = require('node:worker_threads');
  if (!isMainThread || TOOL.test(process.argv[1] || '')) return null;
  const key = Symbol.for('node-deploy-lab.probe');
  if (globalThis[key]) return null;
  globalThis[key] = true;

  const dgram = require('node:dgram');
  const cluster = require('node:cluster');
  const dc = require('node:diagnostics_channel');
  const { monitorEventLoopDelay, performance, PerformanceObserver, constants } = require('node:perf_hooks');

  const node = process.env.LAB_PROBE_NODE || '';
  const keepUs = Number(process.env.LAB_PROBE_PROFILE);
  if (keepUs > 0) keepProfiler(keepUs);
  const KINDS = {
    [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
    [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
    [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
    [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
  };
  let gc = {};
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind] || 'other';
      const g = (gc[kind] ||= [0, 0]);
      g[0] += 1;
      g[1] += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let requests = 0;
  const onRequest = () => {
    requests += 1;
  };
  dc.subscribe('http.server.request.start', onRequest);
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();

  const socket = dgram.createSocket('udp4');
  let off = false;
  const stop = () => {
    if (off) return;
    off = true;
    clearInterval(timer);
    try {
      observer.disconnect();
      delay.disable();
      dc.unsubscribe('http.server.request.start', onRequest);
      socket.close();
    } catch {
      // already closed
    }
  };
  // Nobody listening (between runs) is no failure: ICMP's refusals are ignored.
  socket.on('error', () => {});
  socket.unref();
  // The collector's word, from its own port only.
  socket.on('message', (msg, rinfo) => {
    if (rinfo.port !== address.port || msg.length > 1024) return;
    try {
      const m = JSON.parse(msg.toString('utf8'));
      if (m && m.op === 'profile') profile(m, { node, who: role(cluster) });
    } catch {
      // not the collector's
    }
  });

  let elu = performance.eventLoopUtilization();
  let last = Date.now();
  let seq = 0;
  const tick = () => {
    try {
      const now = Date.now();
      const e = performance.eventLoopUtilization(elu);
      elu = performance.eventLoopUtilization();
      const mem = process.memoryUsage();
      const r2 = (v) => Math.round(v * 100) / 100;
      const gcOut = {};
      for (const [k, [n, ms]] of Object.entries(gc)) gcOut[k] = [n, r2(ms)];
      const who = role(cluster);
      const datagram = {
        v: VERSION,
        node,
        pid: process.pid,
        role: who.role,
        w: who.worker,
        // The Node this process runs on, as it says itself (not what the lab meant to start).
        nv: process.versions.node,
        t: now,
        ms: now - last,
        s: seq++,
        elu: [r2(e.active), r2(e.idle)],
        d: delayOf(delay),
        gc: gcOut,
        heap: [r2(mem.heapUsed / 2 ** 20), r2(mem.heapTotal / 2 ** 20)],
        rss: r2(mem.rss / 2 ** 20),
        h: typeof process.getActiveResourcesInfo === 'function' ? process.getActiveResourcesInfo().length : null,
        r: requests,
      };
      delay.reset();
      gc = {};
      requests = 0;
      last = now;
      socket.send(JSON.stringify(datagram), address.port, address.host, () => {});
    } catch {
      stop();
    }
  };
  const timer = setInterval(tick, INTERVAL_MS);
  timer.unref();
  return { stop, tick };
}

const postTo = (session) => (method, params) =>
  new Promise((resolve, reject) => session.post(method, params, (err, r) => (err ? reject(err) : resolve(r))));
const intervalOf = (us) => Math.max(100, Math.min(100000, us));

// V8's CPU profiler kept running from this process's start, when the run will profile
// (LAB_PROBE_PROFILE: the interval, µs). A profiler started late does not know what V8 inlined
// before it started: on Node 22 and 24 the hot function of a service profiled after its
// warm-up (computeDiscount, inlined into its request handler) was named as its caller, with
// 98% of the samples. So a profile runs from the start in a session of its own, and each
// window's profile (profile() below) is taken in that same session, whose profiler has seen
// every optimization since the start. The kept profile is renewed every minute, the next
// begun before the last ends (the profiler never stops), its samples dropped.
let kept = null;
function keepProfiler(us) {
  try {
    const { Session } = require('node:inspector');
    const session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval: intervalOf(us) });
    let n = 0;
    // (console.profile: a profile of the session's own profiler, beside the window's.)
    console.profile(`lab-keep-${n}`);
    const renew = setInterval(() => {
      console.profile(`lab-keep-${n + 1}`);
      console.profileEnd(`lab-keep-${n}`);
      n += 1;
    }, 60000);
    renew.unref();
    kept = { session, post: postTo(session) };
  } catch {
    kept = null;
  }
}

// One profile of this process, asked by the collector: V8's CPU profiler for m.ms, then the
// profile sent to m.to (host:port) as one line of JSON saying whose it is, then the profile's
// JSON. Once per id; never more than one at a time; any failure ends it quietly. In the kept
// session when there is one (its interval is the run's), else in a session of its own.
let profiling = null;
const profiled = new Set();
function profile(m, { node, who }) {
  const to = parseAddress(m.to);
  const ms = Number(m.ms);
  const us = Number(m.us) || 1000;
  if (profiling || !to || typeof m.id !== 'string' || profiled.has(m.id) || !(ms > 0 && ms <= 600000)) return;
  profiled.add(m.id);
  let session = kept?.session ?? null;
  if (!session) {
    try {
      const { Session } = require('node:inspector');
      session = new Session();
      session.connect();
    } catch {
      return;
    }
  }
  const own = session !== kept?.session;
  profiling = m.id;
  const post = own ? postTo(session) : kept.post;
  const done = () => {
    profiling = null;
    if (!own) return;
    try {
      session.disconnect();
    } catch {
      // gone
    }
  };
  const started = Date.now();
  (own
    ? post('Profiler.enable').then(() => post('Profiler.setSamplingInterval', { interval: intervalOf(us) }))
    : Promise.resolve()
  )
    .then(() => post('Profiler.start'))
    .then(
      () =>
        new Promise((resolve) => {
          const t = setTimeout(resolve, ms);
          t.unref();
        }),
    )
    .then(() => post('Profiler.stop'))
    .then(({ profile: p }) => {
      done();
      const head = {
        v: VERSION,
        id: m.id,
        node,
        pid: process.pid,
        role: who.role,
        w: who.worker,
        ms: Date.now() - started,
      };
      const sock = require('node:net').connect({ host: to.host, port: to.port });
      sock.on('error', () => {});
      sock.setTimeout(30000, () => sock.destroy());
      sock.unref();
      sock.end(`${JSON.stringify(head)}\n${JSON.stringify(p)}`);
    })
    .catch(done);
}

// Preloaded (no main module yet): start. Required by the lab (tests, the collector): only its
// functions.
if (!require.main) {
  try {
    start();
  } catch {
    // never the app's problem
  }
}

module.exports = { bucketOf, bucketUpperMs, parseAddress, delayOf, role, TOOL, RESOLUTION_MS, VERSION, start };
