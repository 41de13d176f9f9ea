'use strict';

const { runtimeFigures, quantileOf } = require('../../../lab/probe/figures');
const { bucketOf } = require('../../../probe/preload');

// Datagrams as the preload sends them, with the collector's arrival time.
let seq = 0;
function dg(
  node,
  pid,
  at,
  { role = 'process', w = null, active = 100, idle = 900, delays = [1], gc = {}, heap = 10, r = 0 } = {},
) {
  const buckets = {};
  for (const ms of delays) buckets[bucketOf(ms)] = (buckets[bucketOf(ms)] || 0) + 1;
  return {
    v: 1,
    node,
    pid,
    role,
    w,
    t: at,
    at,
    ms: 1000,
    s: seq++,
    elu: [active, idle],
    d: [delays.length, Math.max(...delays), 0, 0, buckets],
    gc,
    heap: [heap, heap * 2],
    rss: heap * 4,
    h: 5,
    r,
  };
}

test('utilization is busy time over all time, of the loops of a node (a primary left out)', () => {
  const T = 1_000_000;
  const ds = [];
  for (let i = 1; i <= 4; i++) {
    ds.push(dg('replica-1', 10, T + i * 1000, { role: 'primary', active: 1, idle: 999 }));
    ds.push(dg('replica-1', 11, T + i * 1000, { role: 'worker', w: 1, active: 900, idle: 100, r: 100 }));
    ds.push(dg('replica-1', 12, T + i * 1000, { role: 'worker', w: 2, active: 100, idle: 900, r: 10 }));
  }
  const f = runtimeFigures(ds);
  expect(f.nodes['replica-1']).toMatchObject({ eventLoopUtilization: 0.5, loops: 2, processes: 3, requests: 440 });
  const [primary, w1, w2] = f.processes;
  expect(primary).toMatchObject({ role: 'primary', eventLoopUtilization: 0.001 });
  expect(w1).toMatchObject({ worker: 1, eventLoopUtilization: 0.9, requests: 400 });
  expect(w2).toMatchObject({ worker: 2, eventLoopUtilization: 0.1, requests: 40 });
});

test("the delay's p99 comes from the merged histograms, never above the max, never averaged", () => {
  const T = 2_000_000;
  // 99 quiet samples a second for 3 s, then one second with a 500 ms stall among 99 quiet ones
  const ds = [1, 2, 3].map((i) => dg('single', 5, T + i * 1000, { delays: Array(99).fill(0.5) }));
  ds.push(dg('single', 5, T + 4000, { delays: [...Array(99).fill(0.5), 500] }));
  const n = runtimeFigures(ds).nodes.single;
  expect(n.eventLoopDelayMaxMs).toBe(500);
  // 1 sample in 397: the p99 is a quiet one (averaging each second's p99 would have said ~125 ms)
  expect(n.eventLoopDelayP99Ms).toBeLessThan(0.6);
  expect(n.eventLoopDelayP50Ms).toBeLessThanOrEqual(n.eventLoopDelayP99Ms);
  expect(quantileOf({ [bucketOf(800)]: 10 }, 0.99, 700)).toBe(700);
  expect(quantileOf({}, 0.99, 0)).toBeNull();
});

test("at the edges: a datagram counts when half of it lies inside, the last one's requests once it overlaps", () => {
  const T = 3_000_000;
  const ds = [
    dg('single', 5, T, { r: 100, active: 0, idle: 1000 }), // [T-1000, T]: outside
    dg('single', 5, T + 1000, { r: 100, active: 0, idle: 1000 }), // 40% inside
    dg('single', 5, T + 2000, { r: 100, active: 1000, idle: 0 }), // all inside
    dg('single', 5, T + 3000, { r: 100, active: 0, idle: 1000 }), // 20% inside: sent after the load
  ];
  const f = runtimeFigures(ds, { from: T + 600, to: T + 2200 });
  // the first straddling second is left out (40%), the last counted for its requests
  expect(f.nodes.single.requests).toBe(200);
  expect(f.nodes.single.eventLoopUtilization).toBe(1);
  expect(f.processes[0].seconds).toBe(1);
});

test('GC summed by kind over the processes, the busiest second as a share; heap summed at the highest second', () => {
  const T = 4_000_000;
  const ds = [
    dg('replica-2', 7, T + 1000, { gc: { minor: [3, 30] }, heap: 20 }),
    dg('replica-2', 8, T + 1100, { gc: { major: [1, 310] }, heap: 30 }),
    dg('replica-2', 7, T + 2000, { gc: { minor: [1, 5] }, heap: 25 }),
    dg('replica-2', 8, T + 2100, { heap: 40 }),
  ];
  const n = runtimeFigures(ds).nodes['replica-2'];
  expect(n.gcPauseMs).toBe(345);
  expect(n.gc).toEqual({ minor: { count: 4, ms: 35 }, major: { count: 1, ms: 310 } });
  expect(n.gcBusiestSecondPct).toBe(31);
  expect(n.heapUsedMiBMax).toBe(65);
  const s = runtimeFigures(ds).series['replica-2'];
  expect(s.heapUsedMiB.map((p) => p[1])).toEqual([50, 65]);
  expect(s.gcMs.map((p) => p[1])).toEqual([340, 5]);
});

test('what is not a datagram of the probe is left out', () => {
  const f = runtimeFigures([null, {}, { node: 'x', pid: 'a' }, dg('single', 1, 5000)]);
  expect(f.processes).toHaveLength(1);
});
