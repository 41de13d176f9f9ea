#!/usr/bin/env node
'use strict';

// What the live dashboard costs a run (issue 25): /ping at 1,000 arrivals a second with the
// lab's fast generator, without --dashboard and with it and tabs open (event-stream clients
// reading every event, as a browser tab does), alternated. Compared: the launched rate, the
// p99, the generator's CPU, and the dashboard's own CPU (each redraw measured, summary.json's
// `dashboard`). Goal: launched rate within 1%, the dashboard under 2% of one core.
//   node bench/dashboard.js [--rate 1000] [--seconds 30] [--rounds 2] [--tabs 3]
// Writes bench/results/dashboard.json with the machine.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const lab = require('./lab');
const { bench, flag, withDefault, common } = require('./kit');

const log = (m) => process.stderr.write(`${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A tab: an event-stream client that reads everything, reconnecting until the run serves.
function tab(port, stopAt) {
  let events = 0;
  let bytes = 0;
  const open = () =>
    new Promise((resolve) => {
      const req = http.get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
        res.on('data', (d) => {
          bytes += d.length;
          events += (String(d).match(/^data: /gm) || []).length;
        });
        res.on('end', resolve);
        res.on('error', resolve);
      });
      req.on('error', resolve);
    });
  const done = (async () => {
    while (Date.now() < stopAt) {
      await open();
      await sleep(300);
    }
  })();
  return { done, read: () => ({ events, bytes }) };
}

async function one(withDashboard, values) {
  const { rate, seconds } = values;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-dash-'));
  const args = [
    'scenario',
    'ping',
    'endurance',
    'single',
    '--generator',
    'fast',
    // The endurance scenario's rate is 200/s: scaled to the one asked.
    '--rate-scale',
    String(rate / 200),
    '--duration',
    `${seconds}s`,
    '--keepalive',
    '--no-graphite',
    '--json',
    '--port-base',
    String(values['port-base']),
    '--state-dir',
    path.join(dir, 'state'),
    '--results-dir',
    path.join(dir, 'results'),
    ...(withDashboard ? ['--dashboard', String(values.port)] : []),
  ];
  const stopAt = Date.now() + (seconds + 60) * 1000;
  const tabs = withDashboard ? Array.from({ length: values.tabs }, () => tab(values.port, stopAt)) : [];
  const r = await lab(args);
  if (!r.out.trim()) throw new Error(`the scenario exited ${r.code} with nothing on stdout`);
  const s = JSON.parse(r.out);
  const row = {
    dashboard: withDashboard,
    tabs: tabs.length,
    launchedPerS: s.phases[0]?.achievedRate ?? null,
    ratio: s.phases[0]?.ratio ?? null,
    p99Ms: s.responseTimeMs?.p99 ?? null,
    sendLagP99Ms: s.sendLagMs?.p99 ?? null,
    generatorCpuPctMean: s.generator?.cpuPctMean ?? null,
    serviceCpuPctMean: s.nodes?.rows?.find((n) => n.node === 'replica-1')?.cpuPctMean ?? null,
    dashboardOwn: s.dashboard ?? null,
    eventsReadPerTab: tabs.length ? tabs[0].read().events : null,
  };
  fs.rmSync(dir, { recursive: true, force: true });
  log(`  ${withDashboard ? `with the dashboard, ${tabs.length} tab(s)` : 'without'}: ${JSON.stringify(row)}`);
  return row;
}

async function run(values) {
  const rows = [];
  for (let i = 0; i < values.rounds; i++) {
    rows.push(await one(false, values));
    rows.push(await one(true, values));
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const off = rows.filter((r) => !r.dashboard);
  const on = rows.filter((r) => r.dashboard);
  const rateOff = mean(off.map((r) => r.launchedPerS));
  const rateOn = mean(on.map((r) => r.launchedPerS));
  const out = {
    what: `/ping at ${values.rate}/s with fast for ${values.seconds} s on single, without and with --dashboard (${values.tabs} tabs reading every event), alternated`,
    rows,
    launchedRateDiffPct: Math.round((Math.abs(rateOn - rateOff) / rateOff) * 1000) / 10,
    dashboardCpuPctOfCoreMax: Math.max(...on.map((r) => r.dashboardOwn?.cpuPctOfCore ?? 0)),
    goal: 'launched rate within 1%, the dashboard under 2% of one core',
  };
  return {
    headline: { launchedRateDiffPct: out.launchedRateDiffPct, dashboardCpuPctOfCoreMax: out.dashboardCpuPctOfCoreMax },
    ...out,
  };
}

module.exports = bench(
  {
    name: 'dashboard',
    usage:
      'node bench/dashboard.js [--rate 1000] [--seconds 30] [--rounds 2] [--tabs 3] [--port 5690] [--port-base 8600]',
    flags: {
      rate: withDefault(flag.int(1, 100000), 1000),
      seconds: common.seconds(30),
      rounds: common.rounds(2),
      tabs: withDefault(flag.int(0, 100), 3),
      port: withDefault(flag.int(1024, 65535), 5690),
      'port-base': common.portBase(8600),
    },
    run,
  },
  module,
);
