'use strict';

const os = require('node:os');
const fs = require('node:fs');
const path = require('node:path');
const { lab, ownPlace, tmpStateDir, errorCode, ROOT, jsonOf, flagsOf } = require('../../helper');

// What it can take (issue 40): the capacity of each deployment under an SLO, on services the
// lab has never seen. A short search here (levels of 2 s, one verification, a 25% bracket);
// the full one, at default settings, is bench/capacity.js's (bench/results/capacity.json).
// A test that judges a capacity drives a service whose limit the test sets: the paced app
// (test/fixtures/apps/paced) answers one request at a time after a timer, so /work?ms=8 holds
// at most 125/s whatever else the machine runs (its timers only fire later, never sooner).
// (It was the shop app on a replica capped at a quarter of a core: a cap is a ceiling, not a
// floor, and beside five other files it measured 35/s where about 125 was meant.)
const SHOP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
const PACED = path.join(ROOT, 'test', 'fixtures', 'apps', 'paced');
const quick = ['--hold', '2s', '--warmup', '1s', '--repetitions', '1', '--precision', '0.25'];

test('a bracketed, verified capacity for single: the rate, the run that broke the SLO, its cost', async () => {
  const r = await lab(
    [
      'capacity',
      '/work?ms=8',
      '--app',
      PACED,
      '--deployments',
      'single',
      ...quick,
      ...flagsOf({ start: 80, slo: 'p99<1000', json: true }),
      ...(await ownPlace({ ports: 70 })),
    ],
    { timeoutMs: 300000, first: true },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const out = jsonOf(r);
  const [d] = out.deployments;
  expect(d.deployment).toBe('single');
  // The service's own limit is 125/s. Above it the line grows by (rate - 125) a second, and
  // p99<1000 alone held up to 125 x 4/3 over a level's 3 s (warm-up and hold): 140/s was once
  // said, 119.5/s answered. A level holds only what it answers (answered>=95%, 3 requests of
  // slack over its 2 s): 125 / 0.95 + 1.5/s at most; more is an over-report, half of 125 an
  // under-report by 2x. (Under p99<200 a machine running three suites at once stalled timers
  // past the SLO on their own: 25/s was reported.)
  expect(d.maxRate).toBeGreaterThan(125 / 2);
  expect(d.maxRate).toBeLessThanOrEqual(125 / 0.95 + 3 / 2);
  // Bracketed: the level that broke is above the rate given, within the search's precision
  // of a level that held.
  expect(d.broke.rate).toBeGreaterThan(d.maxRate);
  expect(d.broke.failed.some((f) => ['p99<1000', 'errors<1%', 'answered>=95%'].includes(f))).toBe(true);
  const held = out.levels.filter((l) => l.ok).map((l) => l.rate);
  expect(held).toContain(d.maxRate);
  expect(out.levels.filter((l) => !l.ok && l.rate > d.maxRate).length).toBeGreaterThan(0);
  expect(d.verified).toMatchObject({ rate: d.maxRate, runs: 1 });
  expect(d.p99).toBeLessThanOrEqual(1000);
  // Its cost: the CPU a request, by tier (the paced service spends little: its time is a timer's).
  expect(d.cpuMsPerRequest).toBeGreaterThan(0);
  expect(Object.keys(d.cpuMsPerRequestByTier).sort()).toEqual(['nginx', 'replicas']);
  expect(out.best?.deployment ?? out.deployments[0].deployment).toBe('single');
  expect(fs.existsSync(path.join(out.resultsDir, 'capacity.html'))).toBe(true);
  // Every level is a run of its own, with its report.
  expect(out.levels.length).toBeGreaterThanOrEqual(3);
  // Each CPU read at the search's start and end (lab/measure/cpu-speeds.js), and the sentence
  // exactly when they ran apart.
  for (const moment of [out.cpuSpeeds.start, out.cpuSpeeds.end])
    expect(moment.cpus.map((c) => c.cpu)).toEqual(os.cpus().map((_, i) => i));
  expect(Date.parse(out.cpuSpeeds.end.at)).toBeGreaterThan(Date.parse(out.cpuSpeeds.start.at));
  const apart = [out.cpuSpeeds.start, out.cpuSpeeds.end].some((m) => m.spreadPct > 15);
  expect(out.cpuSpeedsText === undefined).toBe(!apart);
}, 320000);

// A search whose SLO no level can hold (p99 under 10 us): it steps down from 100/s to its floor.
// Its service is the paced app at 1 ms a request, four at once (4,000/s whatever else the
// machine runs): no level overloads it, so nothing but the SLO can end the search. (It was the
// shop app: beside five other files, 100/s overloaded it (p99 3 s), it had not recovered 65 s
// later, and the search rightly stopped there, never reaching its floor.)
const NEVER_HOLDS = [
  'capacity',
  '/work?ms=1&c=4',
  ...flagsOf({ app: PACED, deployments: 'single', slo: 'p99<0.01' }),
  ...quick,
  '--start',
  '100',
  '--min-rate',
  '50',
];

test("an SLO no level breaks down to the floor: said with the lowest level's figure, exit 1", async () => {
  const r = await lab([...NEVER_HOLDS, ...(await ownPlace({ ports: 70 }))], { timeoutMs: 120000 });
  expect(r.code).toBe(1);
  // (Another criterion the lowest level broke is named after it: beside five files, "and
  // answered>=95% (measured 0%)".)
  expect(r.stdout).toMatch(
    /single: no level held, from 100\/s down to 50\/s \(the floor is 50\/s, --min-rate\): the lowest broke p99<0\.01 \(measured [\d.]+ms\)( and [^;]+)?; try a looser --slo, or a lower --min-rate/,
  );
}, 150000);

test('bad input: an SLO that cannot be parsed, an unknown deployment; --plan says how long', async () => {
  const bad = await lab(['capacity', '/x', '--slo', 'p99 under 3', '--state-dir', tmpStateDir()]);
  expect({ exit: bad.code, code: errorCode(bad.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_FLAG_VALUE' });
  expect(bad.stderr).toMatch(/--slo "p99 under 3": expected like p99<200/);
  const dep = await lab(['capacity', '/x', '--deployments', 'single,replicatd', '--state-dir', tmpStateDir()]);
  expect({ exit: dep.code, code: errorCode(dep.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_UNKNOWN_NAME' });
  expect(dep.stderr).toMatch(/did you mean "replicated"/);
  const plan = await lab(['capacity', 'ping', '--deployments', 'single,replicated', '--plan']);
  expect(plan.code).toBe(0);
  expect(plan.stdout).toMatch(/^capacity of ping on single, replicated under p99<200 and errors<1%/);
  expect(plan.stdout).toMatch(/expected: about \d+:\d\d if the SLO breaks near 640\/s, at most \d+:\d\d/);
  // The WebSocket capacity keeps its form.
  const ws = await lab(['capacity', '--memory', '1M', '--state-dir', tmpStateDir()]);
  expect(ws.code).toBe(2);
  expect(ws.stderr).toMatch(/--memory/);
});

// The live page while the search runs (--dashboard): the levels measured so far, then the end.
test('capacity --dashboard: the levels as they are measured, then the results', async () => {
  const http = require('node:http');
  const { startProgram, freePort } = require('../../helper');
  const port = await freePort();
  const run = await startProgram(
    'lab/cli',
    [...NEVER_HOLDS, '--dashboard', String(port), ...(await ownPlace({ ports: 70 }))],
    { ready: (err) => /live dashboard/.test(err), timeoutMs: 60000 },
  );
  const events = [];
  await new Promise((resolve) => {
    http
      .get({ host: '127.0.0.1', port, path: '/events' }, (res) => {
        let buf = '';
        res.on('data', (d) => {
          buf += d;
          for (const m of buf.matchAll(/^data: (.*)$/gm)) events.push(JSON.parse(m[1]));
          buf = buf.slice(buf.lastIndexOf('\n') + 1);
          if (events.some((e) => e.ended)) res.destroy();
        });
        res.on('close', resolve);
      })
      .on('error', resolve);
  });
  await run.exited;
  const last = events[events.length - 1];
  expect(last.ended).toBe(true);
  expect(last.status).toMatch(/the search has ended; its page: .*capacity\.html/);
  expect(last.html).toMatch(/What each deployment can take: \/work\?ms=1&amp;c=4/);
}, 150000);

// What this test checks is the search's folder read back, not where the SLO breaks: on a
// service whose limit is a timer's (15 ms a request, one at a time: about 66/s), 25/s holds and
// 100/s breaks whatever else the machine runs, under p99<1000: above the limit the line grows by
// a third of the rate every second, seconds of wait within a level. (50/s, three quarters of its
// limit, once broke beside four CPU hogs: each timer there fires late; and 25/s under the
// default p99<200 broke there too, its stalls longer than 200 ms.) (On a CPU-bound service
// under p99<500 a stall of over 2 s once broke the first level, the search ended there, and
// nothing was read back; its SLO was then loosened to p99<5000.)
test('the same --run-dir again: the search is read back, not deleted; other settings are refused; --restart starts over', async () => {
  const runDir = path.join(tmpStateDir(), 'search');
  const place = await ownPlace({ ports: 70 });
  const args = (more = []) => [
    'capacity',
    '/work?ms=15',
    '--app',
    PACED,
    '--deployments',
    'single',
    ...quick,
    ...flagsOf({ start: 25, maxRate: 100, slo: 'p99<1000', runDir: runDir, json: true }),
    ...more,
    ...place,
  ];
  // (Each run's time-out allows its search to be searched again, once, which doubles it: in CI,
  // beside five other files, a first run was, and 200 s stopped it in its second search.)
  const first = await lab(args(), { timeoutMs: 330000, first: true });
  expect(first.stderr).not.toMatch(/LAB_ERR/);
  const a = jsonOf(first);
  // More than one folder, or the one measured again would be the only one (and nothing read
  // back). (Whether 25/s held is not this test's: in a whole suite run with its CPU counted,
  // it once broke p99<1000, and the search stepped down from it, folders all the same.)
  expect(a.levels[0].rate).toBe(25);
  expect(a.levels.length).toBeGreaterThan(2);
  // (Each level's folder, and the verification runs'; the probes of recovery apart. A search
  // that this machine's other work held back is searched once more, its levels in a folder
  // beside the first: in CI, with five other files running, it once was, 7 folders in each.)
  const levelDirs = () =>
    ['single', 'single-again']
      .filter((d) => fs.existsSync(path.join(runDir, d)))
      .flatMap((d) =>
        fs
          .readdirSync(path.join(runDir, d))
          .filter((n) => /^\d+-/.test(n))
          .sort()
          .map((n) => path.join(d, n)),
      );
  const levels = levelDirs();
  expect(levels.length).toBeGreaterThan(1);
  // A folder per level, the verification's runs among them (each level says its role).
  expect(levels.length).toBe(a.levels.length);
  // (The verification's runs of the search whose verdict stands: the second, when there was one.)
  const last = a.deployments[0].searchedAgain ? 'single again' : 'single';
  expect(a.levels.filter((l) => l.role === 'verification' && l.deployment === last)).toHaveLength(
    a.deployments[0].verified.tries,
  );
  // A level cut short (no summary) is measured again; the others are read back, nothing
  // deployed for them.
  fs.rmSync(path.join(runDir, levels[levels.length - 1], 'summary.json'));
  const again = await lab(args(), { timeoutMs: 330000, first: true });
  expect(again.stderr).toMatch(/resuming the search/);
  expect(again.stderr).toMatch(/25\/s \(measured before\)/);
  const b = jsonOf(again);
  // Every level read back as it was; the one cut short measured again at its rate (what it
  // measures then is a new run's, at a knee's noisy edge: 62.5/s of a 66/s service once held,
  // then broke, measured again).
  const readBack = a.levels.length - 1;
  expect(b.levels.slice(0, readBack).map((l) => [l.rate, l.ok])).toEqual(
    a.levels.slice(0, readBack).map((l) => [l.rate, l.ok]),
  );
  expect(b.levels[readBack].rate).toBe(a.levels[readBack].rate);
  // The folders kept, and one for each level this run measured beyond them (a busy CI machine
  // once made the second verification step down where the first had held).
  const kept = levelDirs();
  expect(kept.slice(0, levels.length)).toEqual(levels);
  expect(kept.length).toBe(b.levels.length);
  // Other settings: refused, and the search kept.
  const other = await lab(args(['--start', '30']), { timeoutMs: 60000 });
  expect(other.code).toBe(2);
  expect(other.stderr).toMatch(/holds a capacity search with other settings \(start\); add --restart/);
  expect(levelDirs()).toEqual(kept);
  // (Ahead of the other files' processes, as the two runs before it: at nice 0, in CI beside
  // five other files, it was searched again and stopped at its time-out.)
  const restarted = await lab(args(['--start', '30', '--restart']), { timeoutMs: 330000, first: true });
  expect(restarted.stderr).not.toMatch(/resuming|LAB_ERR/);
  expect(jsonOf(restarted).levels[0].rate).toBe(30);
}, 720000);

test('an SLO on a request the source does not send is refused by capacity and the study, as scenario refuses it', async () => {
  const cap = await lab(['capacity', '/api/items', '--app', SHOP, '--slo', 'p99{GET /x}<500', '--plan']);
  expect(cap.code).toBe(2);
  expect(cap.stderr).toMatch(/the path \/api\/items has no request named "GET \/x"; its requests: GET \/api\/items/);
  const ok = await lab(['capacity', '/api/items', '--app', SHOP, '--slo', 'p99{GET /api/items}<500', '--plan']);
  expect(ok.code).toBe(0);
  const script = path.join(ROOT, 'test', 'fixtures', 'scripts', 'shop-flow.yml');
  const byScript = await lab(['capacity', '--script', script, '--app', SHOP, '--slo', 'p99{GET /x}<500', '--plan']);
  expect(byScript.stderr).toMatch(/has no request named "GET \/x"; its requests: GET \/api\/items, POST \/api\/cart/);
  const study = await lab([
    'study',
    'deployments',
    ...flagsOf({ app: SHOP, endpoints: '/api/items', slo: 'p99{GET /x}<500', plan: true }),
  ]);
  expect(study.code).toBe(2);
  expect(errorCode(study.stderr)).toBe('LAB_ERR_FLAG_VALUE');
});
