#!/usr/bin/env node
'use strict';

// The lab's engines against the C floor (issue 65), in one run, on /ping through nginx on a
// `single` deployment this script brings up, in interleaved rounds, the better round kept:
//   new connection per request   ab -c 10 (C)        against  fast, open loop at --rate/s
//   kept alive, closed loop      wrk -t1 -c50 (C)    against  closed --keepalive -c50
//   kept alive, open loop        (the closed loop)   against  fast --keepalive at --ka-rate/s
//   HTTP/2 over TLS, streams     h2load -c2 -m4 (C)  against  closed --http2 --connections 2 --streams 4
//     (on a `single --http2` deployment of its own; no goal yet: where the lab stands)
// CPU per request: the C tools' from /proc (this process's reaped children), the lab's from
// its run's summary (its generator process from the first arrival, as users read it). Then a
// CPU profile of each of the lab's engines (a shorter run under --cpu-prof, not counted above):
// its hottest functions by self time, where its time goes.
// Goals (the issue's): fast <= 3x ab; closed --keepalive <= 1.5x wrk and answers a second >=
// autocannon's (bench/keepalive.js measures autocannon); fast --keepalive <= 1.5x closed.
// (h2load: nghttp2-client, which `scripts/setup.sh all` installs; without it the HTTP/2 pair
// is left out, said.)
// Writes bench/results/engines.json with the machine it ran on.
//   node bench/engines.js [--seconds 10] [--rounds 2] [--rate 400] [--ka-rate 3000]
//                         [--connections 50] [--port-base 8950] [--no-profile]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile, spawnSync } = require('node:child_process');
const lab = require('./lab');
const { bench, flag, withDefault, common, childCpu } = require('./kit');
const { mergeTrees, topFunctions } = require('../lab/profile/cpuprofile');

const round1 = (v) => Math.round(v * 10) / 10;
const ratio = (a, b) => (a && b ? Math.round((a / b) * 100) / 100 : null);

function exec(cmd, args, timeoutS, env = process.env) {
  return new Promise((resolve, reject) =>
    execFile(cmd, args, { timeout: timeoutS * 1000, maxBuffer: 1 << 24, env }, (err, out, errOut) =>
      err ? reject(new Error(`${cmd} failed: ${err.message}\n${String(errOut).slice(-500)}`)) : resolve(out),
    ),
  );
}

// ab's and wrk's figures from their own output.
function parseAb(out) {
  const n = Number(/Complete requests:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const failed = Number(/Failed requests:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { answered: n - failed, failed: failed + non2xx };
}
function parseH2load(out) {
  const m = /requests: (\d+) total, (\d+) started, (\d+) done, (\d+) succeeded, (\d+) failed, (\d+) errored/.exec(out);
  const non2xx = /status codes: (\d+) 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx/.exec(out);
  const ok = non2xx ? Number(non2xx[1]) : Number(m?.[4] ?? 0);
  return {
    answered: ok,
    failed: Number(m?.[5] ?? 0) + Number(m?.[6] ?? 0) + (non2xx ? Number(non2xx[3]) + Number(non2xx[4]) : 0),
  };
}
function parseWrk(out) {
  const n = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const failed = non2xx + (errors ? errors.slice(1).reduce((a, v) => a + Number(v), 0) : 0);
  return { answered: n - non2xx, failed };
}

// The engines' table: each one's traffic, how it runs, and what it is compared with.
function enginesOf(values, url, labRun, h2) {
  const S = values.seconds;
  const C = values.connections;
  const c = async (cmd, args, parse) => {
    const before = childCpu();
    const out = await exec(cmd, args, S + 60);
    return { ...parse(out), seconds: S, cpuS: childCpu() - before };
  };
  return [
    {
      name: 'ab -c 10',
      traffic: 'new',
      run: () => c('ab', ['-q', '-c', '10', '-t', String(S), '-n', '100000000', url], parseAb),
    },
    {
      name: `fast at ${values.rate}/s`,
      traffic: 'new',
      lab: ['ping', 'endurance', 'single', '--generator', 'fast', '--rate', String(values.rate), '--duration', `${S}s`],
    },
    {
      name: `wrk -t1 -c${C}`,
      traffic: 'kept-closed',
      run: () => c('wrk', ['-t1', `-c${C}`, `-d${S}s`, url], parseWrk),
    },
    {
      name: `closed --keepalive -c${C}`,
      traffic: 'kept-closed',
      lab: [
        'ping',
        'load',
        'single',
        '--generator',
        'closed',
        '--keepalive',
        '--connections',
        String(C),
        '--duration',
        `${S}s`,
      ],
    },
    {
      name: `fast --keepalive at ${values['ka-rate']}/s`,
      traffic: 'kept-open',
      lab: [
        'ping',
        'endurance',
        'single',
        '--generator',
        'fast',
        '--keepalive',
        '--rate',
        String(values['ka-rate']),
        '--duration',
        `${S}s`,
      ],
    },
    ...(h2
      ? [
          {
            name: 'h2load -c2 -m4',
            traffic: 'h2',
            run: () => c('h2load', ['-c', '2', '-m', '4', '-D', String(S), `${h2.url}/ping`], parseH2load),
          },
          {
            name: 'closed --http2 -c2 --streams 4',
            traffic: 'h2',
            lab: [
              'ping',
              'load',
              'single',
              '--generator',
              'closed',
              '--http2',
              '--connections',
              '2',
              '--streams',
              '4',
              '--duration',
              `${S}s`,
            ],
            h2: true,
          },
        ]
      : []),
  ].map((e) => (e.lab ? { ...e, run: (o) => labRun(e.lab, { ...o, h2: e.h2 }) } : e));
}

// The issue's three comparisons, on the better round of each engine.
function verdicts(best, names) {
  const [ab, fast, wrk, closed, fastKa] = names.map((n) => best[n]);
  const cmp = (what, lab1, ref, max) => {
    const r = ratio(lab1?.cpuUsPerRequest, ref?.cpuUsPerRequest);
    return { what, ratio: r, goal: `<= ${max}x`, met: r !== null && r <= max };
  };
  return [
    cmp('fast (new connection per request) against ab', fast, ab, 3),
    cmp('closed --keepalive against wrk', closed, wrk, 1.5),
    cmp('fast --keepalive (fixed rate) against closed --keepalive', fastKa, closed, 1.5),
    // (No goal yet for HTTP/2: where the lab's engine stands against nghttp2's own.)
    ...(names[6]
      ? [
          {
            what: 'closed --http2 against h2load',
            ratio: ratio(best[names[6]]?.cpuUsPerRequest, best[names[5]]?.cpuUsPerRequest),
            goal: 'none yet',
            met: null,
          },
        ]
      : []),
  ];
}

// The hottest functions of the lab's engine in a profile folder: the generator's own
// profiles (those whose code is the engine's), merged.
function engineProfile(dir) {
  const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')) : [];
  const trees = [];
  for (const f of files) {
    const p = JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8'));
    const urls = new Set(p.nodes.map((n) => n.callFrame.url));
    if ([...urls].some((u) => /lab\/generators\/(fast-worker|fast-process|keepalive)/.test(u))) trees.push(p);
  }
  if (!trees.length) return null;
  const t = topFunctions(mergeTrees(trees), { limit: 8 });
  return {
    profiles: trees.length,
    busyShare: t.busyShare,
    top: t.top.map((f) => ({ name: f.name, where: `${f.file}:${f.line}`, package: f.package, selfShare: f.selfShare })),
    packages: t.packages,
  };
}

// The deployments' state folders, for a failure to take them down.
let deployedIn = null;
let h2DeployedIn = null;

async function run(values, { log }) {
  for (const [bin, pkg] of [
    ['ab', 'apache2-utils'],
    ['wrk', 'wrk'],
  ]) {
    if (spawnSync(bin, ['-V']).error) throw new Error(`${bin} is missing: apt-get install -y ${pkg}`);
  }
  const base = values['port-base'];
  const url = `http://127.0.0.1:${base}/ping`;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engines-state-'));
  const h2StateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engines-h2-state-'));
  const resultsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engines-results-'));
  const labRun = async (args, { profileDir = null, seconds = null, h2 = false } = {}) => {
    const argv = [
      'scenario',
      ...args,
      '--target',
      h2 ? h2Deployment.url : `http://127.0.0.1:${base}`,
      ...(h2 ? ['--insecure'] : []),
      '--json',
      '--no-statsd',
      '--no-graphite',
      '--state-dir',
      path.join(stateDir, 'runs'),
      '--results-dir',
      resultsDir,
    ];
    if (seconds) argv[argv.indexOf('--duration') + 1] = `${seconds}s`;
    // (The lab forks its generator with its own Node flags: the generator, and its threads,
    // write profiles too.)
    const nodeArgs = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const r = await lab(argv, { nodeArgs });
    if (r.code !== 0) throw new Error(`scenario ${args.join(' ')} exited ${r.code}`);
    const s = JSON.parse(r.out);
    const failed =
      Object.values(s.errors || {}).reduce((a, n) => a + n, 0) +
      Object.entries(s.codes || {})
        .filter(([code]) => !code.startsWith('2'))
        .reduce((a, [, n]) => a + n, 0);
    const seconds1 = s.phases.reduce((a, p) => a + p.durationS, 0);
    return {
      answered: s.requestsCompleted,
      failed,
      seconds: seconds1,
      cpuS: s.generator.cpuS,
      verdict: s.saturation?.verdict,
    };
  };
  const up = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
  if (up.code !== 0) throw new Error('deploy single failed');
  deployedIn = stateDir;
  // The HTTP/2 pair's own deployment (TLS and HTTP/2 at nginx), when h2load is there.
  let h2Deployment = null;
  if (spawnSync('h2load', ['--version']).error)
    log('h2load is missing (apt-get install -y nghttp2-client): the HTTP/2 pair is left out');
  else {
    const h2Up = await lab([
      'deploy',
      'single',
      '--http2',
      '--json',
      '--state-dir',
      h2StateDir,
      '--port-base',
      String(base + 50),
    ]);
    if (h2Up.code !== 0) throw new Error('deploy single --http2 failed');
    h2DeployedIn = h2StateDir;
    h2Deployment = { url: JSON.parse(h2Up.out).url };
  }
  const ENGINES = enginesOf(values, url, labRun, h2Deployment);
  const rows = Object.fromEntries(ENGINES.map((e) => [e.name, []]));
  const profiles = {};
  try {
    for (let round = 1; round <= values.rounds; round++) {
      for (const e of ENGINES) {
        const r = await e.run({});
        const row = {
          round,
          answered: r.answered,
          answersPerS: Math.round(r.answered / r.seconds),
          cpuUsPerRequest: round1((r.cpuS * 1e6) / Math.max(1, r.answered)),
          failed: r.failed || 0,
        };
        rows[e.name].push(row);
        log(`${e.name}: ${JSON.stringify(row)}`);
      }
    }
    if (values.profile) {
      for (const e of ENGINES.filter((x) => x.lab)) {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engines-prof-'));
        await e.run({ profileDir: dir, seconds: Math.min(values.seconds, 8) });
        profiles[e.name] = engineProfile(dir);
        log(`${e.name}: profiled (${profiles[e.name]?.profiles ?? 0} profile(s))`);
        fs.rmSync(dir, { recursive: true, force: true });
      }
    }
  } finally {
    await lab(['down', '--state-dir', stateDir]);
    deployedIn = null;
    if (h2DeployedIn) await lab(['down', '--state-dir', h2StateDir]);
    h2DeployedIn = null;
  }
  // The better round: the lower CPU per request (a busier moment only adds).
  const best = Object.fromEntries(
    Object.entries(rows).map(([name, rs]) => [name, [...rs].sort((a, b) => a.cpuUsPerRequest - b.cpuUsPerRequest)[0]]),
  );
  const names = ENGINES.map((e) => e.name);
  const goals = verdicts(best, names);
  return {
    versions: {
      ab: spawnSync('ab', ['-V'], { encoding: 'utf8' }).stdout.split('\n')[0],
      wrk: spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0] || 'wrk',
      h2load: h2Deployment ? spawnSync('h2load', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] : null,
      node: process.version,
    },
    settings: {
      seconds: values.seconds,
      rounds: values.rounds,
      rate: values.rate,
      kaRate: values['ka-rate'],
      connections: values.connections,
      target:
        'GET /ping through nginx on single (the lab deploys it); the HTTP/2 pair through nginx on single --http2 (TLS, h2)',
    },
    engines: Object.fromEntries(names.map((n) => [n, { best: best[n], rounds: rows[n] }])),
    goals,
    profiles,
    note: "CPU per request: C tools from this process's reaped children (/proc), the lab's from its summary (its generator process tree from the first arrival); the better of the rounds",
    headline: Object.fromEntries(
      goals.map((g) => [g.what, `${g.ratio}x (${g.goal}${g.met === null ? '' : `: ${g.met ? 'met' : 'not met'}`})`]),
    ),
  };
}

const self = bench(
  {
    name: 'engines',
    usage:
      'node bench/engines.js [--seconds 10] [--rounds 2] [--rate 400] [--ka-rate 3000] [--connections 50] [--port-base 8950] [--no-profile]',
    flags: {
      seconds: common.seconds(10),
      rounds: common.rounds(2),
      rate: withDefault(flag.int(1, 50000), 400),
      'ka-rate': withDefault(flag.int(1, 50000), 3000),
      connections: common.concurrency(50),
      'port-base': common.portBase(8950),
      'no-profile': flag.bool(),
    },
    exit: true,
    run: (values, o) => run({ ...values, profile: !values['no-profile'] }, o),
    cleanup: async () => {
      if (deployedIn) await lab(['down', '--state-dir', deployedIn]);
      if (h2DeployedIn) await lab(['down', '--state-dir', h2DeployedIn]);
    },
  },
  module,
);
module.exports = { ...self, parseAb, parseWrk, verdicts };
