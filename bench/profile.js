#!/usr/bin/env node
'use strict';

// What --profile costs the service it profiles (issue 61): a service the lab has never seen
// (test/fixtures/apps/pricing, /price: a few ms of CPU in its own function) deployed once on
// `single`, saturated by the lab's closed loop (kept-alive connections), profiled and not,
// interleaved (plain, profiled, profiled, plain, ...: a drift of the machine falls on both).
// The answers a second are counted over the profile's window (--profile-window) in both, so
// that the profiled seconds are compared with the same seconds unprofiled. Goal: at most 5%
// fewer while profiling. (Off, --profile costs nothing: the probe loads no profiler until it
// is asked; the probe itself is bench/probe.js's.)
// Writes bench/results/profile.json with the machine it ran on.
//   node bench/profile.js [--seconds 20] [--rounds 4] [--connections 16] [--rounds-of-work 100000] [--port-base 19500]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, flag, withDefault, common } = require('./kit');

const APP = path.join(__dirname, '..', 'test', 'fixtures', 'apps', 'pricing');

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

// Requests answered a second over [fromS, toS) of the load, from a run's records.
function answersPerS(dir, fromS, toS) {
  const records = fs
    .readFileSync(path.join(dir, 'records.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  const t0 = records.find((r) => r.type === 'phase')?.at;
  const secs = records.filter((r) => r.type === 'second' && r.at >= t0 + fromS * 1000 && r.at < t0 + toS * 1000);
  return secs.length ? Math.round(secs.reduce((a, r) => a + (r.completed || 0), 0) / secs.length) : null;
}

async function run(values) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-profile-'));
  const where = ['--state-dir', path.join(dir, 'state'), '--port-base', String(values['port-base'])];
  const fromS = Math.round(values.seconds / 4);
  const toS = Math.min(values.seconds - 2, fromS + 10);
  const rows = [];
  const up = await lab(['deploy', 'single', '--app', APP, '--json', ...where]);
  if (up.code !== 0) throw new Error(`deploy exited ${up.code}`);
  const url = JSON.parse(up.out).url;
  try {
    for (let i = 0; i < values.rounds; i++) {
      for (const variant of i % 2 ? ['profiled', 'plain'] : ['plain', 'profiled']) {
        const runDir = path.join(dir, `run-${i}-${variant}`);
        const r = await lab([
          'scenario',
          `/price?rounds=${values['rounds-of-work']}`,
          'endurance',
          '--target',
          url,
          '--generator',
          'closed',
          '--keepalive',
          '--connections',
          String(values.connections),
          '--duration',
          String(values.seconds),
          '--no-statsd',
          '--json',
          '--run-dir',
          runDir,
          ...(variant === 'profiled' ? ['--profile', '--profile-window', `${fromS}-${toS}`] : []),
          ...where,
        ]);
        if (r.code !== 0) throw new Error(`scenario exited ${r.code}`);
        const s = JSON.parse(r.out);
        const top = s.profile?.nodes?.['replica-1']?.top?.[0];
        rows.push({
          round: i + 1,
          variant,
          answersPerS: answersPerS(runDir, fromS, toS),
          ...(top ? { top: `${top.name} ${Math.round(top.selfShare * 100)}%` } : {}),
        });
        process.stderr.write(`${JSON.stringify(rows.at(-1))}\n`);
      }
    }
  } finally {
    await lab(['down', ...where.slice(0, 2)]);
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const of = (v) => median(rows.filter((r) => r.variant === v).map((r) => r.answersPerS));
  const plain = of('plain');
  const profiled = of('profiled');
  const costPct = Math.round((1 - profiled / plain) * 1000) / 10;
  return {
    headline: { plain, profiled, costPct, met: costPct <= 5 },
    method: `test/fixtures/apps/pricing on single (nginx), /price?rounds=${values['rounds-of-work']}, saturated by the closed loop (${values.connections} kept-alive connections, ${values.seconds} s a round), ${values.rounds} rounds of each variant in ABBA order; answers a second over ${fromS}-${toS} s of each run (the profiled runs' --profile-window); medians`,
    plainAnswersPerS: plain,
    profiledAnswersPerS: profiled,
    costPct,
    goal: 'at most 5% fewer answers a second while profiling (1 ms sampling), nothing when off',
    met: costPct <= 5,
    rounds: rows,
  };
}

module.exports = bench(
  {
    name: 'profile',
    usage: 'node bench/profile.js [--seconds 20] [--rounds 4] [--connections 16] [--rounds-of-work 100000]',
    flags: {
      seconds: common.seconds(20),
      rounds: common.rounds(4),
      connections: withDefault(flag.int(1, 10000), 16),
      'rounds-of-work': withDefault(flag.int(1, 5000000), 100000),
      'port-base': common.portBase(19500),
    },
    run,
  },
  module,
);
