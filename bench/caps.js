#!/usr/bin/env node
'use strict';

// Whether a CPU cap holds (issue 14): a replica capped at CPU% of one core is saturated with
// CPU-bound requests (/heavy) for S seconds, and the CPU it got is read from its control
// group's own accounting (cpuacct.usage in v1, cpu.stat in v2) over exactly that window.
// Goal: within the cap ± 2 points. Also the memory cap as the kernel reports it.
//   node bench/caps.js [--caps 10,25,50] [--seconds 10] [--port-base 8080]
// Needs root and cgroups. Writes bench/results/caps.json with the machine it ran on.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { bench, flag, withDefault, common } = require('./kit');
const lab = require('./lab');
const { detect, readGroup } = require('../lab/runtime/cgroups');

// Keeps `concurrency` /heavy requests in flight until `until`, so the replica never idles.
function saturate(url, concurrency, until) {
  const agent = new http.Agent({ keepAlive: true });
  let done = 0;
  const one = () =>
    new Promise((resolve) => {
      http
        .get(url, { agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', resolve);
    }).then(() => {
      done += 1;
      if (Date.now() < until) return one();
      return null;
    });
  return Promise.all(Array.from({ length: concurrency }, one)).then(() => {
    agent.destroy();
    return done;
  });
}

async function run(values) {
  const S = values.seconds;
  const sys = detect();
  if (!sys || process.getuid() !== 0) throw new Error('needs root and a cgroup filesystem');
  const rows = [];
  for (const pct of values.caps.split(',').map(Number)) {
    const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-caps-${pct}-`));
    const up = await lab([
      'deploy',
      'single',
      '--cap',
      `replica=${pct}%,256M`,
      '--state-dir',
      stateDir,
      '--port-base',
      String(values['port-base']),
      '--json',
    ]);
    if (up.code !== 0) throw new Error(`deploy with --cap replica=${pct}% failed`);
    try {
      const state = JSON.parse(up.out);
      const token = state.cgroups.token;
      const url = `http://127.0.0.1:${state.ports.replicas[0]}/heavy?ms=50`;
      // Warm-up: the first second of saturation, not measured.
      await saturate(url, values.concurrency, Date.now() + 1000);
      const t0 = process.hrtime.bigint();
      const g0 = readGroup(sys, token, 'replica-1');
      const served = await saturate(url, values.concurrency, Date.now() + S * 1000);
      const g1 = readGroup(sys, token, 'replica-1');
      const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
      const got = ((g1.cpuUsageUs - g0.cpuUsageUs) / 1e6 / seconds) * 100;
      const row = {
        capPct: pct,
        cgroupCpuPct: Math.round(got * 100) / 100,
        withinTwoPoints: Math.abs(got - pct) <= 2,
        seconds: Math.round(seconds * 100) / 100,
        heavyRequestsServed: served,
        memoryLimitMiB: g1.memoryLimitBytes / 2 ** 20,
        memoryPeakMiB: Math.round((g1.memoryPeakBytes / 2 ** 20) * 10) / 10,
        oomKills: g1.oomKills,
        cgroupVersion: sys.version,
      };
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  }
  return {
    headline: rows,
    what: 'a replica capped at N% of one core, saturated with /heavy; CPU read from its cgroup',
    goal: 'within the cap ± 2 points',
    options: { seconds: S, concurrency: values.concurrency },
    rows,
  };
}

module.exports = bench(
  {
    name: 'caps',
    usage: 'node bench/caps.js [--caps 10,25,50] [--seconds 10] [--concurrency 4] [--port-base 8080]',
    flags: {
      caps: { type: 'string', default: '10,25,50' },
      seconds: common.seconds(10),
      concurrency: withDefault(flag.int(1, 1000), 4),
      'port-base': common.portBase(8080),
    },
    run,
  },
  module,
);
