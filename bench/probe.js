#!/usr/bin/env node
'use strict';

// What the runtime probe (probe/preload.js) costs the service it is preloaded into (issue 52):
// the lab's /ping, one process, saturated by the lab's closed loop (kept-alive connections),
// with the probe and without, interleaved (plain, probed, probed, plain, ...: a drift of the
// machine falls on both). Goal: throughput with the probe within 2% of without. Also the
// service's CPU per answer (from /proc), and the datagrams the probe sent to this script's
// own UDP sink (one a second, else the probe was not running). Writes bench/results/probe.json
// with the machine it ran on.
//   node bench/probe.js [--seconds 15] [--rounds 4] [--connections 32]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const dgram = require('node:dgram');
const http = require('node:http');
const { spawn } = require('node:child_process');
const lab = require('./lab');
const { bench, flag, withDefault, common } = require('./kit');
const { PRELOAD, probeEnv } = require('../lab/probe/env');

const PORT = 19380;
const TICKS = 100;

const cpuTicks = (pid) => {
  const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(f[11]) + Number(f[12]);
};
const ready = () =>
  new Promise((resolve) => {
    const t0 = Date.now();
    const once = () =>
      http
        .get(`http://127.0.0.1:${PORT}/ping`, (res) => {
          res.resume();
          resolve(true);
        })
        .on('error', () => (Date.now() - t0 > 10000 ? resolve(false) : setTimeout(once, 100)));
    once();
  });

async function round(variant, sink, { S, connections, dir }) {
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(PORT),
    WORKERS: '1',
    STATSD_HOST: '',
    ...(variant === 'probed' ? probeEnv({ node: 'bench', address: `127.0.0.1:${sink.port}` }) : {}),
  };
  const service = spawn(process.execPath, [path.join(__dirname, '..', 'service', 'index.js')], {
    env,
    stdio: 'ignore',
  });
  try {
    if (!(await ready())) throw new Error('the service did not answer');
    const before = { ticks: cpuTicks(service.pid), datagrams: sink.count };
    const r = await lab([
      'scenario',
      'ping',
      'load',
      '--target',
      `http://127.0.0.1:${PORT}`,
      '--generator',
      'closed',
      '--keepalive',
      '--connections',
      String(connections),
      '--duration',
      String(S),
      '--json',
      '--no-statsd',
      '--state-dir',
      path.join(dir, 'state'),
      '--results-dir',
      path.join(dir, 'results'),
    ]);
    if (r.code !== 0) throw new Error(`scenario exited ${r.code}`);
    const s = JSON.parse(r.out);
    const cpuS = (cpuTicks(service.pid) - before.ticks) / TICKS;
    return {
      variant,
      answered: s.requestsCompleted,
      answersPerS: Math.round(s.requestsCompleted / s.durationS),
      serviceCpuUsPerAnswer: Math.round(((cpuS * 1e6) / s.requestsCompleted) * 10) / 10,
      datagrams: sink.count - before.datagrams,
      seconds: s.durationS,
      failed: s.requestsFailed,
    };
  } finally {
    service.kill('SIGTERM');
    await new Promise((resolve) => (service.exitCode !== null ? resolve() : service.once('exit', resolve)));
  }
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function run(values) {
  const S = values.seconds;
  const ROUNDS = values.rounds;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-probe-'));
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const sink = { port: sock.address().port, count: 0 };
  sock.on('message', () => (sink.count += 1));
  const rows = [];
  try {
    for (let i = 0; i < ROUNDS; i++) {
      // ABBA: the order alternates, so a slow drift of the machine falls on both.
      for (const v of i % 2 ? ['probed', 'plain'] : ['plain', 'probed']) {
        const row = await round(v, sink, { S, connections: values.connections, dir });
        rows.push({ round: i + 1, ...row });
        process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
      }
    }
  } finally {
    sock.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const of = (v, k) => median(rows.filter((r) => r.variant === v).map((r) => r[k]));
  const plain = {
    answersPerS: of('plain', 'answersPerS'),
    serviceCpuUsPerAnswer: of('plain', 'serviceCpuUsPerAnswer'),
  };
  const probed = {
    answersPerS: of('probed', 'answersPerS'),
    serviceCpuUsPerAnswer: of('probed', 'serviceCpuUsPerAnswer'),
  };
  const throughputCostPct = Math.round((1 - probed.answersPerS / plain.answersPerS) * 1000) / 10;
  const cpuPerAnswerCostPct = Math.round((probed.serviceCpuUsPerAnswer / plain.serviceCpuUsPerAnswer - 1) * 1000) / 10;
  return {
    headline: { plain, probed, throughputCostPct, cpuPerAnswerCostPct, met: throughputCostPct < 2 },
    method: `the lab's /ping (service/index.js, one process), saturated by the closed loop (${values.connections} kept-alive connections, ${S} s a round), ${ROUNDS} rounds of each variant in ABBA order; the probe preloaded by NODE_OPTIONS and sending to a UDP sink of this script's; medians`,
    plain,
    probed,
    throughputCostPct,
    cpuPerAnswerCostPct,
    goal: 'throughput with the probe within 2% of without',
    met: throughputCostPct < 2,
    preload: path.relative(path.join(__dirname, '..'), PRELOAD),
    rounds: rows,
  };
}

module.exports = bench(
  {
    name: 'probe',
    usage: 'node bench/probe.js [--seconds 15] [--rounds 4] [--connections 32]',
    flags: {
      seconds: common.seconds(15),
      rounds: common.rounds(4),
      connections: withDefault(flag.int(1, 10000), 32),
    },
    run,
  },
  module,
);
