'use strict';

const { bucketUpperMs } = require('../../probe/preload');

// The runtime probe's datagrams (probe/preload.js) over a run's window, as figures: per
// process, per node and per node and second. Pure: figures from datagrams.
//
// How processes add up to a node, each by what it means:
//   event-loop utilization: the busy time of the node's loops over their whole time (sum of
//     active / sum of active + idle), so a node of four workers is at 1 when all four are;
//   event-loop delay: its percentiles from the merged histograms of the node's loops over the
//     window (never percentiles averaged across seconds or processes), capped at the max;
//   GC: the time and collections of all its processes, summed;
//   heap: the node's processes summed, at its highest second (as the node table sums RSS);
//   requests: summed.
// A cluster primary only forks and passes connections: its loop is left out of the node's
// loop figures (its heap and GC are the node's) and shown on its own row.
// A datagram covers the ms before it was sent (at, its arrival on the collector's clock: a
// VM's or container's own clock may differ; t without it). At the window's edges (the load's
// start and end) a datagram straddles them, and counts whole when at least half of it lies
// inside, else not at all: the window moves to the nearest datagram boundary (scaling an edge
// second by its share would mix the idle after the load into the busy before it). Except the
// requests and collections of the second the load ended in, which count whole once it
// overlaps at all: they are the load's (the readiness checks just before a load's start are
// not).
const when = (d) => (Number.isFinite(d.at) ? d.at : d.t);
function shareIn(d, from, to) {
  const end = when(d);
  const span = d.ms > 0 ? d.ms : 1000;
  const overlap = Math.min(end, to) - Math.max(end - span, from);
  return overlap > 0 ? Math.min(1, overlap / span) : 0;
}

const r1 = (v) => Math.round(v * 10) / 10;
const r2 = (v) => Math.round(v * 100) / 100;
const r3 = (v) => Math.round(v * 1000) / 1000;

// The q-quantile (0..1) of a bucket histogram { bucket: count }, at most max.
function quantileOf(buckets, q, max) {
  const entries = Object.entries(buckets)
    .map(([b, n]) => [Number(b), n])
    .filter(([, n]) => n > 0)
    .sort((a, b) => a[0] - b[0]);
  const total = entries.reduce((a, [, n]) => a + n, 0);
  if (!total) return null;
  let seen = 0;
  for (const [b, n] of entries) {
    seen += n;
    if (seen >= q * total - 1e-9) return r2(Math.min(bucketUpperMs(b), max));
  }
  return r2(max);
}

function addBuckets(into, from) {
  for (const [b, n] of Object.entries(from || {})) into[b] = (into[b] || 0) + n;
}

const valid = (d) =>
  d &&
  typeof d === 'object' &&
  typeof d.node === 'string' &&
  Number.isInteger(d.pid) &&
  Number.isFinite(d.t) &&
  Array.isArray(d.elu) &&
  Array.isArray(d.d);

function emptyAcc() {
  return { active: 0, idle: 0, count: 0, max: 0, buckets: {}, gc: {}, gcMs: 0, requests: 0, seconds: 0 };
}

// Adds a datagram to an accumulator: its counters always, its loop's figures when `loop`.
function addTo(acc, d, loop = true) {
  for (const [kind, [n, ms]] of Object.entries(d.gc || {})) {
    const g = (acc.gc[kind] ||= { count: 0, ms: 0 });
    g.count += n;
    g.ms += ms;
    acc.gcMs += ms;
  }
  acc.requests += d.r || 0;
  if (!loop) return;
  acc.active += d.elu[0] || 0;
  acc.idle += d.elu[1] || 0;
  const [count, max, , , buckets] = d.d;
  acc.count += count || 0;
  acc.max = Math.max(acc.max, max || 0);
  addBuckets(acc.buckets, buckets);
  acc.seconds += 1;
}

// The loop's figures of an accumulator: utilization and the delay's percentiles.
function loopFigures(acc) {
  const busy = acc.active + acc.idle;
  return {
    eventLoopUtilization: busy > 0 ? r3(acc.active / busy) : null,
    eventLoopDelayP50Ms: acc.count ? quantileOf(acc.buckets, 0.5, acc.max) : null,
    eventLoopDelayP99Ms: acc.count ? quantileOf(acc.buckets, 0.99, acc.max) : null,
    eventLoopDelayMaxMs: acc.count ? r2(acc.max) : null,
  };
}

const gcOut = (gc) =>
  Object.fromEntries(Object.entries(gc).map(([k, g]) => [k, { count: Math.round(g.count), ms: r1(g.ms) }]));

// datagrams: as received ({ node, pid, role, w, t, ms, elu, d, gc, heap, rss, h, r });
// window: { from, to } in ms since the epoch (either open).
function runtimeFigures(datagrams, { from = -Infinity, to = Infinity } = {}) {
  const inWindow = [];
  for (const d of datagrams) {
    if (!valid(d)) continue;
    const f = shareIn(d, from, to);
    const last = when(d) > to;
    if (f >= 0.5 || (f > 0 && last)) inWindow.push({ d, loop: f >= 0.5 });
  }
  const procs = new Map();
  for (const { d, loop } of inWindow) {
    const key = `${d.node}\u0000${d.pid}`;
    if (!procs.has(key)) {
      procs.set(key, {
        node: d.node,
        pid: d.pid,
        role: d.role,
        worker: d.w ?? null,
        nodeVersion: typeof d.nv === 'string' ? d.nv.slice(0, 20) : null,
        acc: emptyAcc(),
        heapMax: 0,
        heapTotalMax: 0,
        rssMax: 0,
        handlesMax: null,
        gcBusiest: 0,
      });
    }
    const p = procs.get(key);
    // A process that forked workers after its first second is a primary from then on.
    if (d.role === 'primary') p.role = 'primary';
    addTo(p.acc, d, loop);
    if (loop) {
      p.heapMax = Math.max(p.heapMax, d.heap?.[0] || 0);
      p.heapTotalMax = Math.max(p.heapTotalMax, d.heap?.[1] || 0);
      p.rssMax = Math.max(p.rssMax, d.rss || 0);
      if (Number.isFinite(d.h)) p.handlesMax = Math.max(p.handlesMax ?? 0, d.h);
    }
    const gcMs = Object.values(d.gc || {}).reduce((a, [, ms]) => a + ms, 0);
    if (d.ms > 0) p.gcBusiest = Math.max(p.gcBusiest, gcMs / d.ms);
  }

  const processes = [...procs.values()]
    .map((p) => ({
      node: p.node,
      pid: p.pid,
      role: p.role,
      worker: p.worker,
      nodeVersion: p.nodeVersion,
      seconds: r1(p.acc.seconds),
      requests: Math.round(p.acc.requests),
      ...loopFigures(p.acc),
      gcPauseMs: r1(p.acc.gcMs),
      gc: gcOut(p.acc.gc),
      gcBusiestSecondPct: r1(p.gcBusiest * 100),
      heapUsedMiBMax: r1(p.heapMax),
      heapTotalMiBMax: r1(p.heapTotalMax),
      rssMiBMax: r1(p.rssMax),
      handlesMax: p.handlesMax,
    }))
    .sort(
      (a, b) =>
        a.node.localeCompare(b.node, 'en', { numeric: true }) || (a.worker ?? 0) - (b.worker ?? 0) || a.pid - b.pid,
    );

  const series = seriesOf(inWindow, procs);
  const nodes = {};
  for (const name of new Set(processes.map((p) => p.node))) {
    const mine = [...procs.values()].filter((p) => p.node === name);
    const loops = mine.filter((p) => p.role !== 'primary');
    const acc = emptyAcc();
    for (const p of loops.length ? loops : mine) {
      for (const k of ['active', 'idle', 'count', 'requests']) acc[k] += p.acc[k];
      acc.max = Math.max(acc.max, p.acc.max);
      addBuckets(acc.buckets, p.acc.buckets);
    }
    let gcMs = 0;
    const gc = {};
    for (const p of mine) {
      gcMs += p.acc.gcMs;
      for (const [k, g] of Object.entries(p.acc.gc)) {
        const t = (gc[k] ||= { count: 0, ms: 0 });
        t.count += g.count;
        t.ms += g.ms;
      }
    }
    const heapPoints = series[name]?.heapUsedMiB || [];
    nodes[name] = {
      processes: mine.length,
      loops: loops.length || mine.length,
      requests: Math.round(acc.requests),
      ...loopFigures(acc),
      gcPauseMs: r1(gcMs),
      gc: gcOut(gc),
      gcBusiestSecondPct: r1(Math.max(0, ...mine.map((p) => p.gcBusiest)) * 100),
      heapUsedMiBMax: heapPoints.length ? r1(Math.max(...heapPoints.map((x) => x[1]))) : null,
    };
  }
  return { processes, nodes, series };
}

// Per node and second (the second a datagram's t falls in): the loops' utilization, the delay's
// p99 of that second's merged histograms, the GC time (ms, summed) and the heap used (summed,
// each process at its last known value, so a second one of its datagrams missed is not a dip).
// { [node]: { elu: [[t, v]], delayP99Ms, gcMs, heapUsedMiB } } with t in ms since the epoch.
function seriesOf(entries, procs) {
  const bins = new Map(); // node -> second -> datagrams
  for (const { d } of entries) {
    const sec = Math.floor(when(d) / 1000) * 1000;
    if (!bins.has(d.node)) bins.set(d.node, new Map());
    const m = bins.get(d.node);
    if (!m.has(sec)) m.set(sec, []);
    m.get(sec).push(d);
  }
  const out = {};
  for (const [node, m] of bins) {
    const s = { elu: [], delayP99Ms: [], gcMs: [], heapUsedMiB: [] };
    const lastHeap = new Map();
    for (const sec of [...m.keys()].sort((a, b) => a - b)) {
      const ds = m.get(sec);
      const loops = ds.filter((d) => procs.get(`${d.node}\u0000${d.pid}`)?.role !== 'primary');
      const acc = emptyAcc();
      for (const d of loops.length ? loops : ds) addTo(acc, d);
      const f = loopFigures(acc);
      if (f.eventLoopUtilization !== null) s.elu.push([sec, f.eventLoopUtilization]);
      if (f.eventLoopDelayP99Ms !== null) s.delayP99Ms.push([sec, f.eventLoopDelayP99Ms]);
      let gc = 0;
      for (const d of ds) {
        gc += Object.values(d.gc || {}).reduce((a, [, ms]) => a + ms, 0);
        lastHeap.set(d.pid, { at: sec, mib: d.heap?.[0] || 0 });
      }
      // (A process silent for 3 s has exited: a replaced worker is not counted twice.)
      for (const [pid, h] of lastHeap) if (sec - h.at > 3000) lastHeap.delete(pid);
      s.gcMs.push([sec, r1(gc)]);
      s.heapUsedMiB.push([sec, r1([...lastHeap.values()].reduce((a, h) => a + h.mib, 0))]);
    }
    out[node] = s;
  }
  return out;
}

module.exports = { runtimeFigures, quantileOf };
