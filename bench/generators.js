#!/usr/bin/env node
'use strict';

// The load generators side by side in one run, on one `single` deployment (issue 13):
//  1. CPU per request at 200/s on /ping (6,000 requests): Artillery vs fast.
//     Goal: fast <= 0.6 ms, at least 9x below Artillery.
//  2. The course's `ping load` ramp to 1,000/s, deployment on the same 2 cores: the share of
//     each second's asked arrivals that was launched, and the p99 send lag. Goal for fast:
//     >= 99% of every second (seconds asking 50 or more), p99 send lag <= 5 ms.
//  3. Agreement with an independent open loop written here (timed from each request's due
//     time, exact percentiles from a sorted array) on /ping and /bbox1 at 200/s.
//     Goal: percentiles within 5% or 0.2 ms.
// Writes bench/results/generators.json with the machine it ran on.
//   node bench/generators.js [--seconds 30] [--ramp-scale 1] [--port-base 8080]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const lab = require('./lab');
const { bench, flag, withDefault, common } = require('./kit');
const { seconds } = require('../lab/measure/records');
const { arrivals } = require('../lab/generators/schedule');

// The run's folders and its deployment's address (run sets them; a failure takes it down).
const where = { stateDir: null, resultsDir: null, target: null };

// One scenario run against the deployment that is up, its summary and records.
async function scenario(endpoint, scenarioName, extra) {
  const r = await lab([
    'scenario',
    endpoint,
    scenarioName,
    'single',
    '--target',
    where.target,
    '--json',
    '--no-statsd',
    '--state-dir',
    path.join(where.stateDir, 'runs'),
    '--results-dir',
    where.resultsDir,
    ...extra,
  ]);
  if (r.code !== 0) throw new Error(`scenario ${endpoint} ${scenarioName} ${extra.join(' ')} exited ${r.code}`);
  const summary = JSON.parse(r.out);
  const records = fs
    .readFileSync(path.join(summary.resultsDir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { summary, records };
}

// An independent open loop: one request per due time on a new connection, each on its own
// timer set up front; latency from the due time (from the send when the timer fired early),
// percentiles exact from the sorted latencies.
function independent(url, rate, secondsLong) {
  return new Promise((resolve) => {
    const n = Math.round(rate * secondsLong);
    const lat = [];
    let done = 0;
    const t0 = performance.now() + 100;
    const cpu0 = process.cpuUsage();
    for (let k = 0; k < n; k++) {
      const due = t0 + (k * 1000) / rate;
      setTimeout(
        () => {
          const from = Math.min(due, performance.now());
          http
            .get(url, { agent: false }, (res) => {
              res.resume();
              res.on('end', () => {
                lat.push(performance.now() - from);
                if (++done === n) finish();
              });
            })
            .on('error', () => {
              if (++done === n) finish();
            });
        },
        Math.max(0, due - performance.now()),
      );
    }
    function finish() {
      lat.sort((a, b) => a - b);
      const q = (p) => Math.round(lat[Math.min(lat.length - 1, Math.ceil((p / 100) * lat.length) - 1)] * 1000) / 1000;
      const cpu = process.cpuUsage(cpu0);
      resolve({
        count: lat.length,
        p50: q(50),
        p90: q(90),
        p99: q(99),
        max: q(100),
        cpuMsPerRequest: Math.round((cpu.user + cpu.system) / lat.length) / 1000,
      });
    }
  });
}

const within = (a, b) => Math.abs(a - b) <= Math.max(0.2, 0.05 * Math.max(a, b));

// Each second's launched arrivals against the arrivals the schedule made due in it, for the
// seconds asking 100 or more (below that, one arrival sent a millisecond past a second's
// boundary is already 1%). Launched counts by the second a request was actually sent.
function perSecondShare(records, phases) {
  const secs = seconds(records);
  const start = records.find((r) => r.type === 'phase')?.at ?? secs[0]?.at;
  const due = new Map();
  for (const a of arrivals(phases)) due.set(Math.floor(a.at / 1000), (due.get(Math.floor(a.at / 1000)) || 0) + 1);
  const rows = [];
  for (const [i, asked] of due) {
    if (asked < 100) continue;
    const s = secs.find((x) => Math.round((x.at - start) / 1000) === i);
    rows.push({ second: i, asked, launched: s ? s.launched : 0 });
  }
  const shares = rows.map((r) => r.launched / r.asked);
  return { worst: Math.round(Math.min(...shares) * 1000) / 1000, seconds: rows.length };
}

async function run(values) {
  const S = values.seconds;
  const base = values['port-base'];
  where.stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gen-state-'));
  where.resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-gen-results-'));
  where.target = `http://127.0.0.1:${base}`;
  const { stateDir, target } = where;
  const up = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
  if (up.code !== 0) throw new Error('deploy failed');
  const out = {};
  try {
    const rateArgs = ['--duration', String(S), '--rate-scale', '1'];
    // 1. CPU per request at 200/s (ping endurance is 200/s).
    const cpu = {};
    for (const g of ['artillery', 'fast']) {
      const { summary } = await scenario('ping', 'endurance', [...rateArgs, '--generator', g]);
      cpu[g] = {
        requests: summary.scenariosLaunched,
        cpuS: summary.generator.cpuS,
        msPerRequest: summary.generator.cpuMsPerRequest,
      };
      process.stderr.write(`cpu ${g}: ${JSON.stringify(cpu[g])}\n`);
    }
    out.cpuPerRequest = {
      ...cpu,
      ratio: Math.round((cpu.artillery.msPerRequest / cpu.fast.msPerRequest) * 10) / 10,
      goal: 'fast <= 0.6 ms and >= 9x below Artillery',
      met: cpu.fast.msPerRequest <= 0.6 && cpu.artillery.msPerRequest / cpu.fast.msPerRequest >= 9,
    };
    // 2. The course's ramp to 1,000/s.
    const ramp = {};
    for (const g of ['fast', 'artillery']) {
      const { summary, records } = await scenario('ping', 'load', [
        '--scale',
        String(values['ramp-scale']),
        '--generator',
        g,
      ]);
      const plan = summary.phases.map((p) => ({
        duration: p.durationS,
        arrivalRate: p.targetRate.from,
        rampTo: p.targetRate.to,
      }));
      ramp[g] = {
        launched: summary.scenariosLaunched,
        asked: Math.round(plan.reduce((a, p) => a + ((p.arrivalRate + p.rampTo) / 2) * p.duration, 0)),
        worstSecondShare: perSecondShare(records, plan).worst,
        sendLagP99Ms: summary.sendLagMs ? summary.sendLagMs.p99 : null,
        generatorCpuPctMean: summary.generator.cpuPctMean,
        verdict: summary.saturation.verdict,
      };
      process.stderr.write(`ramp ${g}: ${JSON.stringify(ramp[g])}\n`);
    }
    out.ramp = {
      ...ramp,
      goal: 'fast: >= 99% of every second asking >= 100, p99 send lag <= 5 ms',
      met: ramp.fast.worstSecondShare >= 0.99 && ramp.fast.sendLagP99Ms <= 5,
    };
    // 3. Agreement with the independent open loop, at 200/s.
    out.agreement = {};
    for (const endpoint of ['ping', 'bbox1']) {
      const { summary } = await scenario(endpoint, 'endurance', [...rateArgs, '--generator', 'fast']);
      const fast = summary.responseTimeMs;
      const ref = await independent(`${target}/${endpoint}`, 200, S);
      const ok = ['p50', 'p90', 'p99'].every((k) => within(fast[k], ref[k]));
      out.agreement[endpoint] = {
        fast: { p50: fast.p50, p90: fast.p90, p99: fast.p99, max: fast.max },
        independent: ref,
        goal: 'p50, p90, p99 within 5% or 0.2 ms',
        met: ok,
      };
      process.stderr.write(`agreement ${endpoint}: ${JSON.stringify(out.agreement[endpoint])}\n`);
    }
  } finally {
    await lab(['down', '--state-dir', stateDir]);
  }
  return {
    headline: { cpuPerRequest: out.cpuPerRequest.met, ramp: out.ramp.met, agreement: out.agreement },
    ...out,
  };
}

module.exports = bench(
  {
    name: 'generators',
    usage: 'node bench/generators.js [--seconds 30] [--ramp-scale 1] [--port-base 8080]',
    flags: {
      seconds: common.seconds(30),
      'ramp-scale': withDefault(flag.factor(100), 1),
      'port-base': common.portBase(8080),
    },
    machine: () => ({ artillery: require('artillery/package.json').version }),
    run,
    // A failure takes the deployment down (the normal end does, in run).
    cleanup: async () => {
      if (where.stateDir) await lab(['down', '--state-dir', where.stateDir]);
    },
  },
  module,
);
