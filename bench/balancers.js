#!/usr/bin/env node
'use strict';

// Every balancer kind that runs locally (lab/kinds/) against none, on the same replicas (our
// edition of seed 001's table): `/ping` throughput and p99 with wrk at fixed concurrency,
// and the balancer's own CPU per 1,000 requests (its process tree's ticks in /proc over the
// measured rounds). With `none`, wrk's connections are split over the replicas, one wrk per
// replica, as clients of a NodePort would be; with a balancer, one wrk on its port.
//   node bench/balancers.js [--deployment replicated] [--concurrency 50] [--seconds 10] [--rounds 2]
// Needs wrk (apt-get install wrk). Writes bench/results/balancers.json with the machine.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, common } = require('./kit');
const { BALANCERS } = require('../lab/kinds');
const { tree } = require('../lab/ownership/procs');
const { wrkSplit } = require('./wrk');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// CPU seconds used so far by a process and its descendants (utime + stime of each).
const TICKS = 100;
function cpuSeconds(pid) {
  let ticks = 0;
  for (const p of pid ? tree(pid) : []) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
    } catch {
      // gone meanwhile
    }
  }
  return ticks / TICKS;
}

async function run(values) {
  const C = values.concurrency;
  const S = values.seconds;
  const measure = (urls) => wrkSplit(urls, { connections: C, seconds: S });
  const rows = [];
  const kinds = BALANCERS.filter((k) => k.runtimes.includes('local'));
  for (const kind of ['none', ...kinds.map((k) => k.name).filter((k) => k !== 'none')]) {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-bal-${kind}-`));
    const up = await lab([
      'deploy',
      values.deployment,
      '--balancer',
      kind,
      '--state-dir',
      stateDir,
      '--port-base',
      String(values['port-base']),
      '--json',
    ]);
    if (up.code !== 0) throw new Error(`deploy --balancer ${kind} failed`);
    try {
      const state = JSON.parse(up.out);
      const urls = state.urls.map((u) => `${u}/ping`);
      await measure(urls); // warm-up: JIT, upstream connections
      const entry = state.graph.entry;
      const pid = entry ? (state.pids?.[entry] ?? state.processes.find((p) => p.name === entry)?.pid) : null;
      const runs = [];
      const cpu0 = cpuSeconds(pid);
      for (let r = 0; r < values.rounds; r++) runs.push(await measure(urls));
      const cpuS = cpuSeconds(pid) - cpu0;
      const requests = runs.reduce((a, x) => a + x.rps * S, 0);
      const row = {
        balancer: kind,
        what: BALANCERS.find((k) => k.name === kind).what,
        rps: median(runs.map((x) => x.rps)),
        p99Ms: median(runs.map((x) => x.p99Ms)),
        non2xx: runs.reduce((a, x) => a + x.non2xx, 0),
        // The balancer's CPU (ms) per 1,000 requests it passed: its cost, apart from the
        // contention it causes on the 2 shared cores.
        balancerCpuMsPer1k: entry ? Math.round((cpuS / requests) * 1e6 * 10) / 10 : null,
      };
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  }
  const none = rows.find((r) => r.balancer === 'none');
  for (const r of rows) r.vsNone = Math.round((r.rps / none.rps) * 100) / 100;
  return {
    headline: rows.map((r) => [r.balancer, r.rps, r.vsNone]),
    method: `wrk -t1, ${C} connections, ${S} s, median of ${values.rounds} rounds after a warm-up, /ping on ${values.deployment}`,
    rows,
  };
}

module.exports = bench(
  {
    name: 'balancers',
    usage:
      'node bench/balancers.js [--deployment replicated] [--concurrency 50] [--seconds 10] [--rounds 2] [--port-base 8080]',
    flags: {
      deployment: { type: 'string', default: 'replicated' },
      concurrency: common.concurrency(50),
      seconds: common.seconds(10),
      rounds: common.rounds(2),
      'port-base': common.portBase(8080),
    },
    run,
  },
  module,
);
