#!/usr/bin/env node
'use strict';

// Kept-alive load generation side by side (issue 41): wrk, autocannon and the lab's keep-alive
// engine (lab/generators/keepalive/) in one run, in interleaved rounds, on /ping through
// nginx on a `single` deployment this script brings up. For each: CPU per request (the
// generator's own CPU over the answers it got) and answers a second.
//   wrk                      -t1 -c50 (C: the floor), CPU from /proc of its process
//   autocannon               -c50, and -c50 -p4 (installed into a scratch folder: not a
//                            dependency of the lab), CPU from its run's start
//   closed --keepalive       the lab's closed loop, 50 connections, and with --pipelining 4
//   closed flow              the same on a two-request flow (an Artillery script): goal
//                            within 20% of the one-request cost
//   fast --keepalive         the lab's open loop at a fixed rate on a pool of kept connections
// The lab's engines run as users run them (node lab/cli scenario ... --json), their CPU as
// their summary gives it (from the first arrival: without loading Node).
// Goals, on the medians: the lab's closed --keepalive CPU per request <= autocannon's and
// <= 2x wrk's; its answers a second >= autocannon's.
// Writes bench/results/keepalive.json with the machine it ran on.
//   node bench/keepalive.js [--seconds 15] [--rounds 2] [--connections 50] [--rate 3000]
//                           [--port-base 8900] [--autocannon DIR]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile, spawnSync } = require('node:child_process');
const lab = require('./lab');
const { bench, flag, withDefault, common, childCpu, autocannonDir } = require('./kit');

const round1 = (v) => Math.round(v * 10) / 10;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
// Everything a run uses, for its values: the engines' table and their commands.
function prepare(values) {
  const S = values.seconds;
  const C = values.connections;
  const base = values['port-base'];
  const url = `http://127.0.0.1:${base}/ping`;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ka-state-'));
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ka-results-'));
  const exec = (cmd, args, o = {}) =>
    new Promise((resolve, reject) =>
      execFile(cmd, args, { timeout: (S + 60) * 1000, maxBuffer: 1 << 24, ...o }, (err, out, errOut) =>
        err ? reject(new Error(`${cmd} failed: ${err.message}\n${errOut}`)) : resolve(out),
      ),
    );

  // wrk's CPU: what this process's reaped children used between two readings, wrk being the
  // only child that ran between them (execFile waits for it).
  async function wrk() {
    const before = childCpu();
    const out = await exec('wrk', ['-t1', `-c${C}`, `-d${S}s`, url]);
    const cpuS = childCpu() - before;
    const answered = Number(/(\d+) requests in/.exec(out)[1]);
    const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
    return { answered, non2xx, seconds: S, cpuS };
  }
  async function autocannon(dir, pipelining) {
    const out = await exec(process.execPath, [
      path.join(__dirname, 'autocannon-once.js'),
      dir,
      url,
      String(C),
      String(S),
      String(pipelining),
    ]);
    return JSON.parse(out);
  }

  // A two-request flow for the lab's engines: the flow's cost per request against the
  // one-request scenario's.
  const FLOW = path.join(resultsDir, 'two-requests.yml');
  fs.writeFileSync(
    FLOW,
    `config:\n  target: "http://127.0.0.1:${base}"\n  phases:\n    - duration: ${S}\n      arrivalRate: 1\nscenarios:\n  - flow:\n      - get:\n          url: "/ping"\n          name: "first"\n      - get:\n          url: "/ping?again=1"\n          name: "second"\n`,
  );

  async function labRun(args) {
    const r = await lab([
      'scenario',
      ...args,
      '--target',
      `http://127.0.0.1:${base}`,
      '--json',
      '--no-statsd',
      '--state-dir',
      path.join(stateDir, 'runs'),
      '--results-dir',
      resultsDir,
    ]);
    if (r.code !== 0) throw new Error(`scenario ${args.join(' ')} exited ${r.code}`);
    const s = JSON.parse(r.out);
    const failed = Object.values(s.errors || {}).reduce((a, n) => a + n, 0);
    const non2xx = Object.entries(s.codes || {})
      .filter(([c]) => !c.startsWith('2'))
      .reduce((a, [, n]) => a + n, 0);
    const seconds = s.phases.reduce((a, p) => a + p.durationS, 0);
    return { answered: s.requestsCompleted, non2xx, errors: failed, seconds, cpuS: s.generator.cpuS };
  }

  const closedArgs = ['--generator', 'closed', '--keepalive', '--connections', String(C), '--duration', `${S}s`];
  const ENGINES = [
    { name: 'wrk', run: () => wrk() },
    { name: 'autocannon', run: (d) => autocannon(d, 1) },
    { name: 'lab closed --keepalive', run: () => labRun(['ping', 'load', 'single', ...closedArgs]) },
    {
      name: 'lab closed --keepalive, a two-request flow',
      run: () => labRun(['--script', FLOW, ...closedArgs]),
    },
    { name: 'autocannon -p 4', run: (d) => autocannon(d, 4) },
    {
      name: 'lab closed --keepalive --pipelining 4',
      run: () => labRun(['ping', 'load', 'single', ...closedArgs, '--pipelining', '4']),
    },
    {
      name: `lab fast --keepalive at ${values.rate}/s`,
      run: () =>
        labRun([
          'ping',
          'endurance',
          'single',
          '--generator',
          'fast',
          '--keepalive',
          '--duration',
          `${S}s`,
          '--rate',
          String(values.rate),
        ]),
    },
  ];
  return { S, C, base, stateDir, ENGINES };
}

// The deployment's state folder, for a failure to take it down.
let deployedIn = null;

async function run(values) {
  const { S, C, base, stateDir, ENGINES } = prepare(values);
  const dir = autocannonDir(values.autocannon);
  if (spawnSync('wrk', ['--version']).error) throw new Error('wrk is missing: apt-get install wrk');
  const up = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
  if (up.code !== 0) throw new Error('deploy failed');
  deployedIn = stateDir;
  const rows = Object.fromEntries(ENGINES.map((e) => [e.name, []]));
  try {
    for (let round = 1; round <= values.rounds; round++) {
      for (const e of ENGINES) {
        const r = await e.run(dir);
        const row = {
          round,
          answered: r.answered,
          answersPerS: Math.round(r.answered / r.seconds),
          cpuUsPerRequest: round1((r.cpuS * 1e6) / r.answered),
          failed: (r.non2xx || 0) + (r.errors || 0),
        };
        rows[e.name].push(row);
        process.stderr.write(`${e.name}: ${JSON.stringify(row)}\n`);
      }
    }
  } finally {
    await lab(['down', '--state-dir', stateDir]);
    deployedIn = null;
  }
  const med = {};
  for (const [name, rs] of Object.entries(rows)) {
    med[name] = {
      cpuUsPerRequest: round1(median(rs.map((r) => r.cpuUsPerRequest))),
      answersPerS: Math.round(median(rs.map((r) => r.answersPerS))),
      rounds: rs,
    };
  }
  const lab1 = med['lab closed --keepalive'];
  const flow = med['lab closed --keepalive, a two-request flow'];
  const out = {
    versions: {
      wrk: /^wrk (\S+)/.exec(spawnSync('wrk', ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? null,
      autocannon: require(path.join(dir, 'node_modules', 'autocannon', 'package.json')).version,
    },
    load: `/ping through nginx on single, ${C} connections, ${S} s a run, ${values.rounds} interleaved rounds`,
    engines: med,
    goals: {
      cpuNoMoreThanAutocannon: lab1.cpuUsPerRequest <= med.autocannon.cpuUsPerRequest,
      cpuAtMost2xWrk: lab1.cpuUsPerRequest <= 2 * med.wrk.cpuUsPerRequest,
      answersNoFewerThanAutocannon: lab1.answersPerS >= med.autocannon.answersPerS,
      flowWithin20Percent: flow.cpuUsPerRequest <= 1.2 * lab1.cpuUsPerRequest,
    },
  };
  return { headline: out.goals, ...out };
}

module.exports = bench(
  {
    name: 'keepalive',
    usage:
      'node bench/keepalive.js [--seconds 15] [--rounds 2] [--connections 50] [--rate 3000] [--port-base 8900] [--autocannon DIR]',
    flags: {
      seconds: common.seconds(15),
      rounds: common.rounds(2),
      connections: withDefault(flag.int(1, 10000), 50),
      rate: withDefault(flag.int(1, 1000000), 3000),
      'port-base': common.portBase(8900),
      autocannon: flag.string(),
    },
    run,
    cleanup: async () => {
      if (deployedIn) await lab(['down', '--state-dir', deployedIn]);
    },
  },
  module,
);
