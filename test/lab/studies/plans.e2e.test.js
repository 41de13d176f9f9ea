'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { STUDIES } = require('../../../lab/studies');
const { lab, tmpStateDir, flagsOf } = require('../../helper');

const all = Object.values(STUDIES);
// (A study that needs your service gets the tests' own.)
const SHOP = path.join(__dirname, '..', '..', 'fixtures', 'apps', 'shop');
const opts = (scale) => ({ scale, rateScale: 1, app: SHOP });

describe('the studies as data', () => {
  test.each(all.map((s) => [s.name, s]))('%s: a plan of named lab commands, ids unique', (_, s) => {
    for (const scale of [1, 0.1]) {
      const plan = s.plan(opts(scale));
      expect(plan.length).toBeGreaterThan(0);
      expect(new Set(plan.map((r) => r.id)).size).toBe(plan.length);
      for (const r of plan) {
        expect(['scenario', 'characterize', 'capacity', 'deploy']).toContain(r.args[0]);
        expect(r.expectedS).toBeGreaterThan(0);
        expect(typeof r.what).toBe('string');
      }
    }
    // (A study of the lab's own question, from no seed, has none: tls.)
    if (s.seed !== null) expect(s.seed).toMatch(/^(00\d|yours)$/);
  });

  test("deployments: your service's paths under the course's shapes on the four deployments, then their capacity", () => {
    const plan = STUDIES.deployments.plan({
      ...opts(1),
      paths: ['/api/items'],
      slos: ['p99<300'],
      balancers: ['nginx', 'haproxy'],
    });
    const scenarios = plan.filter((r) => r.kind === 'scenario');
    expect(scenarios).toHaveLength(3 * 4 * 2);
    // (What the user typed for the study goes to its runs as values: lab/studies/passed.js.)
    expect(scenarios[0].args).toEqual([
      'scenario',
      '/api/items',
      'load',
      'single',
      ...flagsOf({ balancer: 'nginx', generator: 'fast' }),
    ]);
    expect(scenarios[0].values).toEqual({ app: SHOP, scale: 1 });
    const cap = plan.at(-1);
    expect(cap.args).toEqual([
      'capacity',
      '/api/items',
      ...flagsOf({ deployments: 'single,replicated,multi,multi-replicated', slo: 'p99<300' }),
    ]);
    expect(cap.values).toEqual({ app: SHOP });
    const script = path.join(__dirname, '..', '..', 'fixtures', 'scripts', 'shop-flow.yml');
    const withScript = STUDIES.deployments.plan({ ...opts(0.1), script, deployments: ['single'] });
    expect(withScript.map((r) => [r.args.slice(0, 2), r.values.script])).toEqual([
      [['scenario', 'single'], script],
      [['capacity', '--deployments'], script],
    ]);
  });

  test('deployments with neither paths nor a script says it loads /, before it starts', async () => {
    expect(STUDIES.deployments.said(opts(1))).toMatch(/every run loads \/ of your service .*--endpoints/);
    expect(STUDIES.deployments.said({ ...opts(1), paths: ['/api/items'] })).toBe(null);
    const r = await lab(['study', 'deployments', '--app', SHOP, '--plan', '--dir', tmpStateDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/no --endpoints or --script given: every run loads \/ of your service/);
  });

  test('a smaller scale makes every study shorter', () => {
    for (const s of all) {
      const sum = (p) => p.reduce((a, r) => a + r.expectedS, 0);
      expect(sum(s.plan(opts(0.1)))).toBeLessThan(sum(s.plan(opts(1))));
    }
  });

  test("cdn: the seed's three cases and the same shares over 500 ms periods, three times interleaved, caches warmed", () => {
    const plan = STUDIES.cdn.plan(opts(1));
    expect(plan).toHaveLength(15);
    expect(plan.slice(0, 5).map((r) => r.args.filter((a, i) => r.args[i - 1] === '--cap'))).toEqual([
      [],
      ['balancer=2%,25M', 'edge=2%,25M'],
      ['balancer=1%,15M', 'edge=1%,15M'],
      ['balancer=2%/500ms,25M', 'edge=2%/500ms,25M'],
      ['balancer=1%/500ms,15M', 'edge=1%/500ms,15M'],
    ]);
    // Interleaved: every case once, then again; the first repetition keeps the case's name.
    expect(plan.map((r) => r.id).slice(0, 7)).toEqual([
      'cdn-no-caps',
      'cdn-2pct-25M',
      'cdn-1pct-15M',
      'cdn-2pct-25M-p500',
      'cdn-1pct-15M-p500',
      'cdn-no-caps-r2',
      'cdn-2pct-25M-r2',
    ]);
    for (const r of plan) expect(r.args).toEqual(expect.arrayContaining(['--keepalive', '--warm-cache']));
    expect(plan[0].args).toEqual(expect.arrayContaining(['--connections', '10', '--duration', '60s']));
    expect(STUDIES.cdn.plan({ ...opts(0.1), repetitions: 1 })).toHaveLength(5);
  });

  test('lb-modes: three kinds at three concurrencies, then L4 and L7 at 1,000 under lower balancer caps, three times interleaved', () => {
    const plan = STUDIES['lb-modes'].plan(opts(1));
    expect(plan).toHaveLength(3 * (9 + 10));
    const none = plan.find((r) => r.id === 'lb-none-c2000');
    expect(none.args).toEqual(
      expect.arrayContaining(['--balancer', 'none', '--connections', '2000', '--requests', '100000']),
    );
    expect(none.args.join(' ')).not.toMatch(/balancer=/);
    expect(plan.find((r) => r.id === 'lb-nginx-c200').args.join(' ')).toMatch(/--cap balancer=100%,1G/);
    // The sweep: L4 and L7 only, at 1,000, each cap.
    const sweep = plan.filter((r) => r.sweep && r.repetition === 1);
    expect(sweep.map((r) => r.id)).toEqual(
      [50, 25, 15, 10, 5].flatMap((c) => [`lb-nginx-l4-c1000-cap${c}`, `lb-nginx-c1000-cap${c}`]),
    );
    expect(sweep.at(-1).args.join(' ')).toMatch(/--connections 1000 .*--cap balancer=5%,1G/);
    // Interleaved: every run once, then again.
    expect(plan[19].id).toBe('lb-none-c200-r2');
    expect(STUDIES['lb-modes'].plan({ ...opts(0.1), repetitions: 1 })[0].args).toEqual(
      expect.arrayContaining(['--requests', '10000']),
    );
    expect(STUDIES['lb-modes'].plan({ ...opts(0.1), repetitions: 1 })).toHaveLength(19);
  });

  test('balancers: one deployment a (balancer, servers), levels 1 to 20 through it; the mesh on a swarm; the light regime', () => {
    const plan = STUDIES.balancers.plan({ ...opts(1), repetitions: 1 });
    const groups = [...new Set(plan.map((r) => r.group.id))];
    expect(groups).toEqual([
      'bal-node-1',
      'bal-node-3',
      'bal-node-5',
      'bal-nginx-1',
      'bal-nginx-3',
      'bal-nginx-5',
      'bal-mesh-1',
      'bal-mesh-3',
      'bal-mesh-5',
      'bal-light-node-1',
      'bal-light-node-3',
      'bal-light-node-5',
    ]);
    expect(plan.filter((r) => r.group.id === 'bal-nginx-3')).toHaveLength(20);
    const mesh = plan.find((r) => r.group.id === 'bal-mesh-5').group.deploy;
    expect(mesh.join(' ')).toMatch(/--replicas 5 --balancer mesh --engine swarm --cap replica=20%/);
    expect(plan[0].args).toContain('{target}');
    expect(plan[0].args).not.toContain('--work-n');
    // Servers that are not CPU-bound: a whole core each, 5 rounds of work a request.
    const light = plan.find((r) => r.group.id === 'bal-light-node-5');
    expect(light.group.deploy.join(' ')).toMatch(/--replicas 5 --balancer node --engine local --cap replica=100%/);
    expect(light.args.join(' ')).toMatch(/--work-n 5/);
    expect(light.id).toBe('bal-light-node-5-c20');
    expect(STUDIES.balancers.levelsFor(0.1)).toEqual([1, 5, 10, 15, 20]);
    // Three repetitions by default, interleaved: the second's groups after all of the first's.
    const three = STUDIES.balancers.plan(opts(0.1));
    expect(three).toHaveLength(3 * 12 * 5);
    expect(three[60].id).toBe('bal-node-1-r2-c01');
    // At full scale only the first repetition of the CPU-bound regime walks 1..20; the repeats
    // and the light regime run the top level, the one the verdicts read.
    const full = STUDIES.balancers.plan(opts(1));
    const stepsOf = (g) => full.filter((r) => r.group.id === g).map((r) => r.id);
    expect(stepsOf('bal-node-3')).toHaveLength(20);
    expect(stepsOf('bal-node-3-r2')).toEqual(['bal-node-3-r2-c20']);
    expect(stepsOf('bal-light-node-5')).toEqual(['bal-light-node-5-c20']);
    expect(full).toHaveLength(3 * 3 * 20 + 3 + 2 * (3 * 3 + 3));
    // Each group's one step still carries the deployment's time.
    expect(full.find((r) => r.id === 'bal-node-3-r2-c20').expectedS).toBe(10 + 4 + 10);
  });

  test('signaling: the load, the capacity under 500 MiB, and the first failure at six limits within reach', () => {
    const plan = STUDIES.signaling.plan(opts(0.1));
    expect(plan.map((r) => r.id)).toEqual([
      'signal-load',
      'capacity-500M',
      'capacity-80M',
      'capacity-90M',
      'capacity-100M',
      'capacity-120M',
      'capacity-150M',
      'capacity-180M',
    ]);
    expect(plan[4].args).toEqual(['capacity', '--memory', '100M', '--levels', '1000,2000,5000', '--hold', '3s']);
  });
});

describe('npm run study: input', () => {
  test('--list names every study with its seed and durations', async () => {
    const r = await lab(['study', '--list']);
    expect(r.code).toBe(0);
    for (const s of all) expect(r.stdout).toMatch(new RegExp(`${s.name}\\s+${s.seed ?? '-'}`));
  });

  test("an unknown study, a course-only flag, another study's flag and an unknown run are usage errors", async () => {
    const dir = tmpStateDir();
    const cases = [
      [['study', 'cnd'], /unknown study "cnd" \(did you mean "cdn"\?\)/],
      [
        ['study', 'cdn', '--endpoints', 'ping'],
        /--endpoints is an option of the course, deployments, scaling and elasticity studies, not of cdn/,
      ],
      [['study', 'deployments', '--plan'], /give --app: the deployments study needs it/],
      [['study', 'deployments', '--app', '/no/such'], /--app \/no\/such: no such folder/],
      [['study', 'deployments', '--app', SHOP, '--endpoints', 'api'], /your service's paths start with \//],
      [['study', 'signaling', '--engine', 'swarm'], /--engine is an option of the balancers study/],
      [['study', 'balancers', '--runs', 'bal-nope'], /no run of balancers starts with "bal-nope"/],
      [['study', 'cdn', '--scale', '0'], /--scale/],
    ];
    for (const [args, re] of cases) {
      const r = await lab([...args, '--dir', dir]);
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(re);
    }
  });

  test('--plan lists a study with what each run is; --runs keeps only the named ones', async () => {
    const r = await lab([
      'study',
      'balancers',
      ...flagsOf({ plan: true, scale: 0.1, runs: 'bal-node-3', dir: tmpStateDir() }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/bal-node-3-c01\s+work through node over 3 server\(s\) capped at 20%, 1 client\(s\)/);
    // Its three repetitions; not the light regime's groups (bal-light-node-3).
    expect(r.stdout).toMatch(/bal-node-3-r3-c20/);
    expect(r.stdout).not.toMatch(/bal-light/);
    expect(r.stdout).toMatch(/15 runs, about/);
  });

  test('a folder keeps one study at one set of settings: another scale is refused, --fresh starts over', async () => {
    const dir = tmpStateDir();
    const stateDir = tmpStateDir();
    // A deployment that cannot happen (no engine at this socket): the study ends at once.
    const env = { DOCKER_HOST: `unix://${path.join(stateDir, 'no-engine.sock')}` };
    const run = (...extra) =>
      lab(['study', 'balancers', '--runs', 'bal-mesh-1', '--dir', dir, '--state-dir', stateDir, ...extra], { env });
    expect((await run('--scale', '0.05')).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'study.json'), 'utf8'))).toMatchObject({
      study: 'balancers',
      scale: 0.05,
    });
    const other = await run('--scale', '0.1');
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /holds the balancers study with scale 0\.05; give the same settings to go on with it, --fresh/,
    );
    expect((await run('--scale', '0.05')).code).toBe(0);
    expect((await run('--scale', '0.1', '--fresh')).code).toBe(0);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'study.json'), 'utf8')).scale).toBe(0.1);
  });
});
