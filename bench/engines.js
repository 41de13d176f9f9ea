#!/usr/bin/env node
'use strict';

// The lab's engines against the C floor (issues 65, 75), in one run, on /ping through nginx on
// a `single` deployment this script brings up, in interleaved rounds, the better round kept:
//   new connection per request   ab -c 10 (C, as fast as it goes)
//                                against fast, open loop, at --rate/s and at --ka-rate/s
//   kept alive, closed loop      wrk -t1 -c50 (C), autocannon -c50  against  closed --keepalive -c50
//   kept alive, open loop        (the closed loop)   against  fast --keepalive at --ka-rate/s
//   HTTP/2 over TLS, streams     h2load -c2 -m4 (C)  against  closed --http2 --connections 2 --streams 4
//     (on a `single --http2` deployment of its own; no goal yet: where the lab stands)
// Beside each open loop, at its rate, the floors under it: Node sending the same requests with
// nothing measured (./node-floor.js: its sockets and timers, what any Node engine pays at that
// rate) and h2load --h1 at the same fixed rate (C). An open loop's CPU a request depends on
// its rate (a wake-up of the process for nearly every arrival and answer when they are far
// apart), which a tool going as fast as it can never pays: the floors say what part of a gap
// to ab is the rate's and what part the engine's.
// CPU per request: the C tools' from /proc (this process's reaped children), the floors' and
// autocannon's from their own process (from the first arrival), the lab's from its run's
// summary (its generator process from the first arrival, as users read it). Then a CPU
// profile of each of the lab's engines (a shorter run under --cpu-prof, not counted above):
// its hottest functions by self time, where its time goes.
// Goals (the issue's): fast <= 3x ab; closed --keepalive <= 1.5x wrk and answers a second >=
// autocannon's; fast --keepalive <= 1.5x closed.
// (h2load: nghttp2-client, which `scripts/setup.sh all` installs; without it the HTTP/2 pair
// and the C rows at a fixed rate are left out, said. autocannon: installed into a scratch
// folder, not a dependency of the lab; --no-autocannon leaves it out.)
// Writes bench/results/engines.json with the machine it ran on.
//   node bench/engines.js [--seconds 10] [--rounds 2] [--rate 400] [--ka-rate 3000]
//                         [--connections 50] [--port-base 8950] [--autocannon DIR | --no-autocannon]
//                         [--no-profile]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFile, spawnSync } = require('node:child_process');
const lab = require('./lab');
const { bench, flag, withDefault, common, childCpu, autocannonDir } = require('./kit');
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

// The engines' table: each one's role (what the verdicts read), its traffic, how it runs.
// Beside each open loop of the lab, at the same rate, the floor under it: Node itself sending
// the same requests with nothing measured (./node-floor.js), and h2load --h1, a C client at a
// fixed rate (arrivals in groups every 10 ms), when nghttp2-client is there.
function enginesOf(values, url, labRun, { h2, h2load, autocannon }) {
  const S = values.seconds;
  const C = values.connections;
  const R = values.rate;
  const K = values['ka-rate'];
  const c = async (cmd, args, parse) => {
    const before = childCpu();
    const out = await exec(cmd, args, S + 60);
    return { ...parse(out), seconds: S, cpuS: childCpu() - before };
  };
  const node = (script, args) =>
    exec(process.execPath, [path.join(__dirname, script), ...args], S + 60).then((out) => JSON.parse(out));
  const floors = (rate, role) => [
    ...(h2load
      ? [
          {
            name: `h2load --h1 at ${rate}/s`,
            role: `c${role}`,
            traffic: 'new',
            run: () => c('h2load', h2loadRate(url, rate, S), parseH2load),
          },
        ]
      : []),
    {
      name: `node:net at ${rate}/s`,
      role: `node${role}`,
      traffic: 'new',
      run: () => node('node-floor.js', [url, String(rate), String(S)]),
    },
  ];
  // A lab run's words: /ping's `scenario` on single with `generator` and its flags, for S s.
  const labArgs = (scenario, generator, ...flags) => [
    'ping',
    scenario,
    'single',
    '--generator',
    generator,
    ...flags,
    '--duration',
    `${S}s`,
  ];
  const fastAt = (rate, role) => ({
    name: `fast at ${rate}/s`,
    role: `fast${role}`,
    traffic: 'new',
    lab: labArgs('endurance', 'fast', '--rate', String(rate)),
  });
  return [
    {
      name: 'ab -c 10',
      role: 'ab',
      traffic: 'new',
      run: () => c('ab', ['-q', '-c', '10', '-t', String(S), '-n', '100000000', url], parseAb),
    },
    ...floors(R, 'Low'),
    fastAt(R, 'Low'),
    // (At one rate, --rate equal to --ka-rate, its rows once.)
    ...(K === R ? [] : [...floors(K, 'High'), fastAt(K, 'High')]),
    {
      name: `wrk -t1 -c${C}`,
      role: 'wrk',
      traffic: 'kept-closed',
      run: () => c('wrk', ['-t1', `-c${C}`, `-d${S}s`, url], parseWrk),
    },
    ...(autocannon
      ? [
          {
            name: `autocannon -c${C}`,
            role: 'autocannon',
            traffic: 'kept-closed',
            run: () =>
              node('autocannon-once.js', [autocannon, url, String(C), String(S), '1']).then((r) => ({
                answered: r.answered - r.non2xx,
                failed: r.non2xx + r.errors,
                seconds: r.seconds,
                cpuS: r.cpuS,
              })),
          },
        ]
      : []),
    {
      name: `closed --keepalive -c${C}`,
      role: 'closed',
      traffic: 'kept-closed',
      lab: labArgs('load', 'closed', '--keepalive', '--connections', String(C)),
    },
    {
      name: `node:net --keepalive at ${K}/s`,
      role: 'nodeKa',
      traffic: 'kept-open',
      run: () => node('node-floor.js', [url, String(K), String(S), '--keepalive']),
    },
    {
      name: `fast --keepalive at ${K}/s`,
      role: 'fastKa',
      traffic: 'kept-open',
      lab: labArgs('endurance', 'fast', '--keepalive', '--rate', String(K)),
    },
    ...(h2
      ? [
          {
            name: 'h2load -c2 -m4',
            role: 'h2load',
            traffic: 'h2',
            run: () => c('h2load', ['-c', '2', '-m', '4', '-D', String(S), `${h2.url}/ping`], parseH2load),
          },
          {
            name: 'closed --http2 -c2 --streams 4',
            role: 'closedH2',
            traffic: 'h2',
            lab: labArgs('load', 'closed', '--http2', '--connections', '2', '--streams', '4'),
            h2: true,
          },
        ]
      : []),
  ].map((e) => (e.lab ? { ...e, run: (o) => labRun(e.lab, { ...o, h2: e.h2 }) } : e));
}

// h2load --h1 at a fixed rate, a new connection per request (as many connections as
// requests, each making one): `rate` a second in groups every 10 ms, or every 100 ms or second
// when the rate does not divide into the shorter period.
function h2loadRate(url, rate, seconds) {
  const n = String(rate * seconds);
  const [each, period] =
    rate % 100 === 0 ? [rate / 100, '10ms'] : rate % 10 === 0 ? [rate / 10, '100ms'] : [rate, '1s'];
  return ['--h1', '-t', '1', '-r', String(each), `--rate-period=${period}`, '-c', n, '-n', n, url];
}

// The issue's comparisons on the better round of each engine (best: by role), and where each
// open loop of the lab stands against the floors at its rate (no goal: what is possible).
function verdicts(best, { rate, kaRate } = {}) {
  const cmp = (what, lab1, ref, max) => {
    const r = ratio(best[lab1]?.cpuUsPerRequest, best[ref]?.cpuUsPerRequest);
    return max === null
      ? { what, ratio: r, goal: 'none', met: null }
      : { what, ratio: r, goal: `<= ${max}x`, met: r !== null && r <= max };
  };
  const out = [
    cmp(`fast at ${rate}/s (new connection per request) against ab`, 'fastLow', 'ab', 3),
    cmp(`fast at ${kaRate}/s (new connection per request) against ab`, 'fastHigh', 'ab', 3),
    cmp('closed --keepalive against wrk', 'closed', 'wrk', 1.5),
    cmp(`fast --keepalive at ${kaRate}/s against closed --keepalive`, 'fastKa', 'closed', 1.5),
  ];
  if (best.autocannon)
    out.push({
      what: 'closed --keepalive answers a second against autocannon',
      ratio: ratio(best.closed?.answersPerS, best.autocannon.answersPerS),
      goal: '>= 1x',
      met: Boolean(best.closed && best.closed.answersPerS >= best.autocannon.answersPerS),
    });
  // Where the floors themselves stand: Node's sockets and timers at the rate, and C's.
  out.push(
    cmp(`node:net at ${rate}/s (the floor under fast) against ab`, 'nodeLow', 'ab', null),
    cmp(`fast at ${rate}/s against node:net at ${rate}/s`, 'fastLow', 'nodeLow', null),
    cmp(`fast at ${kaRate}/s against node:net at ${kaRate}/s`, 'fastHigh', 'nodeHigh', null),
    cmp(
      `node:net --keepalive at ${kaRate}/s (the floor under fast --keepalive) against closed --keepalive`,
      'nodeKa',
      'closed',
      null,
    ),
    cmp(`fast --keepalive at ${kaRate}/s against node:net --keepalive`, 'fastKa', 'nodeKa', null),
  );
  if (best.cLow) out.push(cmp(`h2load --h1 at ${rate}/s against ab`, 'cLow', 'ab', null));
  if (best.cHigh) out.push(cmp(`h2load --h1 at ${kaRate}/s against ab`, 'cHigh', 'ab', null));
  if (best.closedH2) out.push(cmp('closed --http2 against h2load', 'closedH2', 'h2load', null));
  return out.filter((v) => v.ratio !== null || v.met !== null);
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
      // (Its CPU a request to the microsecond: the summary's seconds are rounded to 0.1 s.)
      cpuS: ((s.generator.cpuMsPerRequest ?? 0) * s.requestsSent) / 1000,
      verdict: s.saturation?.verdict,
    };
  };
  const up = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
  if (up.code !== 0) throw new Error('deploy single failed');
  deployedIn = stateDir;
  // The HTTP/2 pair's own deployment (TLS and HTTP/2 at nginx), when h2load is there.
  let h2Deployment = null;
  const h2load = !spawnSync('h2load', ['--version']).error;
  if (!h2load)
    log(
      'h2load is missing (apt-get install -y nghttp2-client): the HTTP/2 pair and the C rows at a fixed rate are left out',
    );
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
  const ENGINES = enginesOf(values, url, labRun, {
    h2: h2Deployment,
    h2load,
    autocannon: values['no-autocannon'] ? null : autocannonDir(values.autocannon),
  });
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
  const byRole = Object.fromEntries(ENGINES.map((e) => [e.role, best[e.name]]));
  if (values.rate === values['ka-rate']) for (const r of ['c', 'node', 'fast']) byRole[`${r}High`] = byRole[`${r}Low`];
  const goals = verdicts(byRole, {
    rate: values.rate,
    kaRate: values['ka-rate'],
  });
  return {
    versions: {
      ab: spawnSync('ab', ['-V'], { encoding: 'utf8' }).stdout.split('\n')[0],
      wrk: spawnSync('wrk', ['-v'], { encoding: 'utf8' }).stdout.split('\n')[0] || 'wrk',
      h2load: h2load ? spawnSync('h2load', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] : null,
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
      'node bench/engines.js [--seconds 10] [--rounds 2] [--rate 400] [--ka-rate 3000] [--connections 50] [--port-base 8950] [--autocannon DIR | --no-autocannon] [--no-profile]',
    flags: {
      seconds: common.seconds(10),
      rounds: common.rounds(2),
      rate: withDefault(flag.int(1, 50000), 400),
      'ka-rate': withDefault(flag.int(1, 50000), 3000),
      connections: common.concurrency(50),
      'port-base': common.portBase(8950),
      autocannon: flag.string(),
      'no-autocannon': flag.bool(),
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
module.exports = { ...self, parseAb, parseWrk, verdicts, h2loadRate };
