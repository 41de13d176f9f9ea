#!/usr/bin/env node
'use strict';

// How many concurrent requests the asynchronous black box holds with its latency still
// flat. Target (issue 2): 10,000 in flight with p99 <= delay + 5%.
// The box runs in its own process, as in the lab; this process holds N requests in flight
// with the closed-loop generator (N keep-alive connections) and, after a warm-up that
// covers the connection storm, records every latency. Results go to
// bench/results/bbox-async-inflight.json with the machine they ran on.
//   node bench/bbox-async-inflight.js [--levels 1000,2000,5000,10000] [--delay 1000] [--seconds 10]
const path = require('node:path');
const { spawn, fork } = require('node:child_process');
const summarize = require('../lab/measure/stats');
const closedLoop = require('../lab/generators/closed-loop-client');
const { bench, flag, withDefault, common } = require('./kit');

function startBox(delay) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(__dirname, '..', 'bbox'), '--port', '0', '--sync', 'bbox2', '--bbox1-delay', String(delay)],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    child.stdout.once('data', (d) => resolve({ child, port: JSON.parse(d.toString().split('\n')[0]).port }));
    child.once('exit', (code) => reject(new Error(`bbox exited ${code}`)));
  });
}

const round = (v) => (v === null ? null : Math.round(v));

// One generator process at 10,000 req/s was the bottleneck (measured: one Node process
// completed ~6,200/s where wrk drove ~8,900/s), so the load is split over --generators
// processes; their raw latencies are merged before any percentile is taken.
function generate(port, n, { generators: k, delay, seconds }) {
  const shares = Array.from({ length: k }, (_, i) => Math.floor(n / k) + (i < n % k ? 1 : 0));
  return Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const child = fork(__filename, ['--child', JSON.stringify({ port, n: share, delay, seconds })]);
          let done = false;
          child.once('message', (m) => ((done = true), resolve(m)));
          child.once('exit', (code, signal) => done || reject(new Error(`generator exited (${signal || code})`)));
        }),
    ),
  ).then((parts) => ({
    latencies: parts.flatMap((p) => p.latencies),
    failed: parts.reduce((a, p) => a + p.failed, 0),
  }));
}

async function child(spec) {
  const r = await closedLoop({
    url: `http://127.0.0.1:${spec.port}/`,
    concurrency: spec.n,
    warmupMs: 3 * spec.delay,
    durationMs: Number(spec.seconds) * 1000,
    keepSamples: true,
  });
  // Disconnect only once the (large) message is flushed, or it can be cut short.
  process.send({ latencies: r.samples, failed: Object.values(r.errors).reduce((a, b) => a + b, 0) }, () =>
    process.disconnect(),
  );
}

async function run(values) {
  const levels = values.levels.split(',').map(Number);
  const { delay } = values;
  const rows = [];
  // A fresh box per level: each level starts from a clean process, as a lab run does.
  for (const n of levels) {
    const box = await startBox(delay);
    try {
      const { latencies, failed } = await generate(box.port, n, values);
      const l = summarize(latencies);
      const row = {
        inFlight: n,
        completed: l.count,
        failed,
        throughput: Math.round(l.count / values.seconds),
        minMs: round(l.min),
        p50Ms: round(l.p50),
        p99Ms: round(l.p99),
        maxMs: round(l.max),
        flat: failed === 0 && l.p99 <= delay * 1.05,
      };
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    } finally {
      box.child.kill('SIGTERM');
      await new Promise((r) => box.child.once('exit', r));
    }
  }
  const held = rows.filter((r) => r.flat).map((r) => r.inFlight);
  const maxFlatInFlight = held.length ? Math.max(...held) : 0;
  return {
    headline: { maxFlatInFlight, rows: rows.map((r) => [r.inFlight, r.p99Ms]) },
    method: `closed loop, N keep-alive connections over ${values.generators} Node processes, warm-up of 3 delays excluded`,
    delayMs: delay,
    target: '10000 in flight with p99 <= delay + 5%',
    maxFlatInFlight,
    rows,
  };
}

// A generator process of this bench (forked by generate): its share of the load, no flags.
const isChild = require.main === module && process.argv[2] === '--child';
if (isChild) {
  child(JSON.parse(process.argv[3])).catch((err) => {
    process.stderr.write(`${err.stack}\n`);
    process.exit(1);
  });
}

module.exports = bench(
  {
    name: 'bbox-async-inflight',
    usage:
      'node bench/bbox-async-inflight.js [--levels 1000,2000,5000,10000] [--delay 1000] [--seconds 10] [--generators 2]',
    flags: {
      levels: { type: 'string', default: '1000,2000,5000,10000' },
      delay: withDefault(flag.int(1, 600000), 1000),
      seconds: common.seconds(10),
      generators: withDefault(flag.int(1, 64), 2),
    },
    run,
  },
  isChild ? null : module,
);
