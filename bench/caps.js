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
const { parseArgs } = require('node:util');
const describeMachine = require('../common/machine');
const lab = require('./lab');
const { detect, readGroup } = require('../lab/runtime/cgroups');

const { values } = parseArgs({
  options: {
    caps: { type: 'string', default: '10,25,50' },
    seconds: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '4' },
    'port-base': { type: 'string', default: '8080' },
  },
});
const S = Number(values.seconds);

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

async function main() {
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
      values['port-base'],
      '--json',
    ]);
    if (up.code !== 0) throw new Error(`deploy with --cap replica=${pct}% failed`);
    try {
      const state = JSON.parse(up.out);
      const token = state.cgroups.token;
      const url = `http://127.0.0.1:${state.ports.replicas[0]}/heavy?ms=50`;
      // Warm-up: the first second of saturation, not measured.
      await saturate(url, Number(values.concurrency), Date.now() + 1000);
      const t0 = process.hrtime.bigint();
      const g0 = readGroup(sys, token, 'replica-1');
      const served = await saturate(url, Number(values.concurrency), Date.now() + S * 1000);
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
  const out = {
    what: 'a replica capped at N% of one core, saturated with /heavy; CPU read from its cgroup',
    goal: 'within the cap ± 2 points',
    machine: describeMachine(),
    at: new Date().toISOString(),
    options: { seconds: S, concurrency: Number(values.concurrency) },
    rows,
  };
  const file = path.join(__dirname, 'results', 'caps.json');
  fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\nwritten: ${file}\n`);
}

main().catch((err) => {
  process.stderr.write(`bench/caps: ${err.message}\n`);
  process.exit(1);
});
