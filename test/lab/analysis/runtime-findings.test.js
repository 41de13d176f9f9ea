'use strict';

const { runFindings } = require('../../../lab/analysis/run-findings');

// Each runtime finding from a crafted summary: the probe's fields on the node table.
const row = (node, elu, more = {}) => ({
  node,
  cpuPctMean: 50,
  eventLoopUtilization: elu,
  eventLoopDelayP99Ms: 5,
  gcPauseMs: 100,
  gcBusiestSecondPct: 2,
  heapUsedMiBMax: 20,
  ...more,
});
const summary = (rows, { nodes = {}, ...extra } = {}) => ({ nodes: { rows, ...nodes }, ...extra, requestsSent: 100 });
const ids = (s) => runFindings(s).map((f) => f.id);

test('a loop busy 70% of the time or more is CPU-bound in JavaScript, named by node', () => {
  const [f] = runFindings(summary([row('nginx', undefined), row('replica-1', 0.96), row('replica-2', 0.4)]));
  expect(f.id).toBe('loop-busy');
  expect(f.text).toMatch(/^the event loop of replica-1 was busy 96% of the time: CPU-bound in JavaScript/);
  const two = runFindings(summary([row('replica-1', 0.9), row('replica-2', 0.72)]))[0];
  expect(two.text).toMatch(/^the event loops of replica-1 90%, replica-2 72% were busy/);
  expect(ids(summary([row('replica-1', 0.69)]))).toEqual([]);
});

test('GC over a fifth of a second is named with the process and second where it took the most', () => {
  const f = runFindings(summary([row('replica-2', 0.5, { gcBusiestSecondPct: 31, gcPauseMs: 2400 })]))[0];
  expect(f.id).toBe('gc-heavy');
  expect(f.text).toMatch(/^GC took 31% of the busiest second of replica-2 \(2400 ms over the run/);
});

test('idle loops while the answers slowed: the service waited on something else', () => {
  const trend = { latencyTrend: { firstQuarterMedianMs: 12, lastQuarterMedianMs: 180, seconds: 5 } };
  const rows = [row('replica-1', 0.12), row('replica-2', 0.08), { node: 'postgres', store: { tpsMean: 9 } }];
  const [f] = runFindings(summary(rows, trend));
  expect(f.id).toBe('loop-waiting');
  expect(f.text).toMatch(
    /^the event loops were mostly idle \(12% at most\) while the median answer went from 12 to 180 ms: the service was waiting on something else \(postgres, /,
  );
  // latency flat, or a loop busy: no finding
  expect(ids(summary(rows, { latencyTrend: { firstQuarterMedianMs: 12, lastQuarterMedianMs: 15 } }))).toEqual([]);
  expect(ids(summary([row('replica-1', 0.5)], trend))).toEqual([]);
});

test("a replica's workers unevenly loaded are named, with the share each took", () => {
  const processes = [
    { node: 'replica-1', role: 'primary', worker: null, pid: 1, requests: 0 },
    { node: 'replica-1', role: 'worker', worker: 1, pid: 2, requests: 193 },
    { node: 'replica-1', role: 'worker', worker: 2, pid: 3, requests: 7 },
    { node: 'replica-2', role: 'worker', worker: 1, pid: 4, requests: 100 },
    { node: 'replica-2', role: 'worker', worker: 2, pid: 5, requests: 98 },
  ];
  const [f] = runFindings(summary([row('replica-1', 0.3), row('replica-2', 0.3)], { nodes: { processes } }));
  expect(f.id).toBe('uneven-workers');
  expect(f.text).toMatch(
    /^replica-1's worker 1 answered 193 of its 200 requests \(97%, a fair share is 50%\): node:cluster/,
  );
  expect(f.text).not.toMatch(/replica-2/);
  // too few requests to tell
  const few = processes.map((p) => ({ ...p, requests: Math.round(p.requests / 10) }));
  expect(ids(summary([row('replica-1', 0.3)], { nodes: { processes: few } }))).toEqual([]);
});

test('a process busy at 80% of a core or more while its loop idled: its CPU went off the loop, never "waiting"', () => {
  // A service burning CPU in a worker_threads worker: the main loop idle, the process at 95%.
  const trend = { latencyTrend: { firstQuarterMedianMs: 12, lastQuarterMedianMs: 1900, seconds: 20 } };
  const rows = [row('replica-1', 0.05, { cpuPctMean: 95, loops: 1 })];
  const found = runFindings(summary(rows, trend));
  expect(found.map((f) => f.id)).toEqual(['cpu-off-loop']);
  expect(found[0].text).toMatch(
    /^replica-1 used 95% of a core while its event loop was busy 5%: the CPU was spent outside the main event loop \(worker_threads/,
  );
  // Per loop: 3 workers at 30% each in all 90% is not a busy process.
  const multi = [row('replica-1', 0.05, { cpuPctMean: 90, loops: 3 })];
  expect(ids(summary(multi, trend))).toEqual(['loop-waiting']);
});

test('a profiled node: the functions it spent its CPU in, joined to the loop-busy finding, or on their own', () => {
  const fn = (name, selfShare, file = '/srv/app/src/pricing.js', line = 42, pkg = 'your code') => ({
    name,
    file,
    line,
    package: pkg,
    selfShare,
    totalShare: selfShare,
  });
  const profile = {
    nodes: {
      'replica-1': {
        busyShare: 0.9,
        top: [fn('computeDiscount', 0.58), fn('stringify', 0.14, null, null, 'V8 (builtins, native)')],
      },
      'replica-2': { busyShare: 0.4, top: [fn('render', 0.3, '/srv/app/node_modules/ejs/lib/ejs.js', 10, 'ejs')] },
      'replica-3': { busyShare: 0.05, top: [fn('idle', 0.9)] },
    },
  };
  const s = summary([row('replica-1', 0.96), row('replica-2', 0.4), row('replica-3', 0.02)], {
    profile,
    deployment: { app: { dir: '/srv/app' } },
  });
  const found = runFindings(s);
  const busy = found.find((f) => f.id === 'loop-busy');
  expect(busy.text).toMatch(
    /^the event loop of replica-1 was busy 96% of the time: CPU-bound in JavaScript, every request waits for the one before it; replica-1 spent 58% of its CPU in computeDiscount \(src\/pricing\.js:42\), 14% in stringify \(V8 \(builtins, native\)\)$/,
  );
  const hot = found.find((f) => f.id === 'hot-functions');
  // (replica-3 mostly idled: nothing said of it.)
  expect(hot.text).toBe('replica-2 spent 30% of its CPU in render (node_modules/ejs/lib/ejs.js:10)');
});
