'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { plan, planText, planJson } = require('../../../../lab/commands/choose/plan');
const { afterScreen } = require('../../../../lab/choose/dimensions');
const capacityPlan = require('../../../../lab/capacity/plan');
const { fingerprintOf } = require('../../../../lab/capacity/fingerprint');
const { ROOT, refusalOf, flagsOf } = require('../../../helper');

const PRICING = path.join(ROOT, 'test', 'fixtures', 'apps', 'pricing');
const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'choose-plan-'))];

test('at the defaults, one screen a unit, each a capacity command line that capacity itself accepts, the flags passed as typed', () => {
  const argv = [
    '/price?rounds=600000',
    ...flagsOf({ app: PRICING, rate: 50, slo: 'p99<300' }),
    '--search-hold=2s',
    ...flagsOf({ warmup: '1s', repetitions: 1, header: 'x-a: 1', hold: '30s' }),
  ];
  const p = plan([...argv, ...where()]);
  // Two shapes at two sizes (a quarter and a half of a core): four units, each screened.
  expect(p.screen).toBe(true);
  expect(p.sweeps.map((s) => [s.id, s.workers, s.capPct])).toEqual([
    ['replicated-25pct', 1, 25],
    ['replicated-50pct', 1, 50],
    ['multi-replicated-25pct', 2, 25],
    ['multi-replicated-50pct', 2, 50],
  ]);
  const args = p.sweeps[2].argv('/tmp/sweep');
  // choose's --search-hold is capacity's --hold; choose's own --hold (the check's) is not
  // passed; what the user gave wins over the screen's own settings, the rest are the screen's.
  expect(args).toEqual(expect.arrayContaining(['--hold', '2s', '--warmup', '1s', '--repetitions', '1']));
  expect(args.filter((a) => a === '--hold')).toHaveLength(1);
  expect(args.join(' ')).toMatch(
    /--precision 100% .*--verify-hold 6s .*--deployments multi-replicated --replicas 1 --workers 2 --balancer nginx --cap replica=25% --slo p99<300/,
  );
  expect(args).toEqual(expect.arrayContaining(['--header', 'x-a: 1', '--app', PRICING]));
  const c = capacityPlan.plan(args);
  expect(c.sweep).toEqual([1]);
  expect(c.countsFor).toBeNull();
  expect({ hold: c.values.hold, precision: c.precision, verifyHold: c.verifyHoldFor(c.start) }).toEqual({
    hold: 2,
    precision: 1,
    verifyHold: 6,
  });
  // A unit's sweep after its screen: at the counts its bound names, from the rate the screen
  // gives, each count verified for 30 s (and the user's --repetitions 1 wins over none).
  const after = afterScreen(p, p.sweeps[2], [2, 3], 60);
  const a = capacityPlan.plan(after.argv('/tmp/after'));
  expect({ sweep: a.sweep, start: a.start, precision: a.precision, verifyHold: a.verifyHoldFor(a.start) }).toEqual({
    sweep: [2, 3],
    start: 60,
    precision: 0.05,
    verifyHold: 30,
  });
  expect(a.repetitions).toBe(1);
  // Each count's lowest break measured again once bisected (capacity --recheck), the screen's
  // not (a screen is not bisected), and the plan says it.
  expect(a.recheck).toBe(true);
  expect(after.argv('/tmp/after')).toContain('--recheck');
  expect(c.recheck).toBe(false);
  expect(planText(p)).toMatch(
    /bisected to 5%, the break bounding the result measured once more, and the next when it held: twice at most \(--recheck\)/,
  );
  // With the rate wanted (the choice's screened path passes it): a count whose search breaks
  // at or below it stops there (capacity --stop-below), as its command line and plan say.
  const stopping = afterScreen(p, p.sweeps[2], [2, 3], 60, 65);
  const sp = capacityPlan.plan(stopping.argv('/tmp/after'));
  expect(sp.stopBelow).toBe(65);
  expect(stopping.argv('/tmp/after').join(' ')).toMatch(/--stop-below 65\b/);
  expect(capacityPlan.planText(sp)).toMatch(/a count whose search breaks at or below 65\/s stops there/);
  expect(a.stopBelow).toBeNull();
  expect(planText(p)).toMatch(/a count whose search breaks at or below 65\/s stopped there/);
  expect(p.sweeps[0].sweepPlan.stopBelow).toBe(65);
  // (Within the search's rates: a start above --max-rate is its highest rate.)
  const capped = plan([...argv, '--max-rate', '70', ...where()]);
  expect(capacityPlan.plan(afterScreen(capped, capped.sweeps[0], [2, 3], 90).argv('/tmp/x')).start).toBe(70);
  expect(p.holdS).toBe(30);
  expect(p.headroom).toBe(0.3);
  expect(planText(p)).toMatch(/a count must be predicted to hold 65\/s/);
  expect(planText(p)).toMatch(/held at 50\/s for 0:30/);
  // The autoscaler's check: a scenario, with the service's and the requests' flags only.
  expect(p.checkAutoscale).toBe(true);
  // (The service's folder as the value choose parsed: scenario's table holds the same flag; the
  // header as typed: scenario parses its own, capacity's is checked and kept as typed.)
  expect(p.toScenario).toEqual({ values: { app: PRICING }, tokens: ['--header', 'x-a: 1'] });
  expect(planText(p)).toMatch(
    /check the autoscaler: .* from 50\/s to 100\/s and back \(50-100\/15s,100-50\/8s,50\/1m45s: the last phase its scale-down window and three syncs\), when it can scale/,
  );
  expect(planJson(p).autoscaleCheck).toEqual({ phases: '50-100/15s,100-50/8s,50/1m45s', aboutS: 188 });
  // --no-check-autoscale: not run, and said; the bound shorter by the run's time.
  const off = plan([...argv, '--no-check-autoscale', ...where()]);
  expect(off.checkAutoscale).toBe(false);
  expect(planText(off)).toMatch(/check the autoscaler: no \(--no-check-autoscale\)/);
  expect(planJson(off).autoscaleCheck).toBeNull();
  expect(planJson(p).expected.atMostS - planJson(off).expected.atMostS).toBe(188);
});

test('the defaults said, and the choices the flags make', () => {
  const p = plan([
    'ping',
    ...flagsOf({
      rate: 200,
      shapes: 'replicated',
      cap: 'replica=15%',
      headroom: '50%',
      balancers: 'nginx,haproxy',
      replicas: '1,2,4,6',
    }),
    ...where(),
  ]);
  expect(p.sweeps.map((s) => s.id)).toEqual(['replicated-nginx', 'replicated-haproxy']);
  expect(p.capPct).toBe(15);
  expect(p.headroom).toBe(0.5);
  expect(p.counts).toEqual([1, 2, 4, 6]);
  // Counts given: exactly those, every unit swept at them, nothing screened.
  expect(p.screen).toBe(false);
  expect(p.countsFor).toBeNull();
  expect(p.sweeps[0].argv('/d')).not.toContain('--replicas-for');
  expect(planText(p)).toMatch(/capacity at 1, 2, 4, 6 replicas, about/);
  // None given: each unit screened at one replica, then swept in the order of its bound (the
  // rate with its headroom, 300/s, over what its one replica broke at), said.
  const d = plan(['ping', ...flagsOf({ rate: 200, headroom: '50%', maxReplicas: 8 }), ...where()]);
  expect({ counts: d.counts, countsFor: d.countsFor, screen: d.screen }).toEqual({
    counts: [1],
    countsFor: null,
    screen: true,
  });
  expect(d.sweeps[0].argv('/d').join(' ')).toMatch(/--replicas 1 --balancer nginx --cap replica=25% /);
  expect(planText(d)).toMatch(
    /^screen replicated-25pct of 25% of a core a replica behind nginx: capacity at 1 replica/m,
  );
  expect(planText(d)).toMatch(/needs ceil\(300 \/ \(b x 1\.25\)\) replicas at least/);
  expect(planText(d)).toMatch(
    /until the cheapest count measured to hold 300\/s costs no more than the next unit's bound/,
  );
  expect(planJson(d).countsFor).toBeNull();
  expect(p.sweeps[1].argv('/d').join(' ')).toMatch(/--balancer haproxy --cap replica=15%/);
  expect(planText(p)).toMatch(/each replica held to 15% CPU/);
  // Another node's cap alone: the replica's sizes are still the defaults'.
  expect(plan(['ping', '--rate', '5', '--cap', 'nginx=50%', ...where()]).sizes).toEqual([25, 50]);
});

test("--down-window: the HPA's scale-down window written and waited for by its check, said in the plan; bounded as Kubernetes bounds it", () => {
  const d = plan(['ping', '--rate', '20', ...where()]);
  expect(d.downWindowS).toBe(60);
  // The autoscaler's run stays at the rate for the window and three syncs of 15 s: 105 s.
  expect(planJson(d).autoscaleCheck.phases).toMatch(/,20\/1m45s$/);
  expect(planJson(d).downWindowS).toBe(60);
  const p = plan(['ping', '--rate', '20', '--down-window', '15s', ...where()]);
  expect(p.downWindowS).toBe(15);
  expect(planJson(p).autoscaleCheck.phases).toMatch(/,20\/1m$/);
  expect(planText(p)).toMatch(/\(20-40\/30s,40-20\/15s,20\/1m: the last phase its scale-down window and three syncs\)/);
  expect(planText(p)).toMatch(/an HPA, its scale-down window 15 s: --down-window\)/);
  // (The plan's time counts the shorter run: 45 s less.)
  expect(planJson(d).autoscaleCheck.aboutS - planJson(p).autoscaleCheck.aboutS).toBe(45);
  expect(plan(['ping', '--rate', '20', '--down-window', '0', ...where()]).downWindowS).toBe(0);
  // Without the autoscaler's run the window is still what the HPA is written with.
  const off = plan(['ping', '--rate', '20', '--down-window', '5m', '--no-check-autoscale', ...where()]);
  expect(planJson(off)).toMatchObject({ autoscaleCheck: null, downWindowS: 300 });
  for (const bad of ['2h', 'soon', '61m']) {
    const e = refusalOf(() => plan(['ping', '--rate', '20', '--down-window', bad, ...where()]));
    expect({ bad, code: e?.code, exit: e?.exit }).toEqual({ bad, code: 'LAB_ERR_INVALID_VALUE', exit: 2 });
    expect(e.message).toContain(`--down-window="${bad}": expected a duration from 0 to 1h`);
  }
});

test('refused before anything runs, each with its code', () => {
  const cases = [
    [['ping'], 'LAB_ERR_MISSING_ARG', /give the target rate: --rate R/],
    [['--rate', '5'], 'LAB_ERR_MISSING_ARG', /an endpoint, a path of your service or --script/],
    [
      ['ping', '--rate', '5', '--sizes', '25%,50%', '--cap', 'replica=50%'],
      'LAB_ERR_FLAGS_EXCLUDE',
      /--sizes 25%,50% gives the replica's CPU shares compared, and --cap replica= gives one/,
    ],
    [
      ['ping', '--rate', '5', '--shapes', 'replicated', '--workers', '3'],
      'LAB_ERR_FLAG_NEEDS',
      /--workers needs --shapes/,
    ],
    [['ping', '--rate', '5', '--shapes', 'single'], 'LAB_ERR_INVALID_VALUE', /--shapes/],
    [['ping', '--rate', '0'], 'LAB_ERR_INVALID_VALUE', /--rate/],
    [['ping', '--rate', '5', '--profile'], 'LAB_ERR_UNKNOWN_FLAG', /unknown option --profile/],
    [
      ['ping', '--rate', '5', '--from', '/nonexistent/choice'],
      'LAB_ERR_FLAG_VALUE',
      /--from \/nonexistent\/choice: no such folder/,
    ],
    // What a sweep would refuse, capacity's own check says now.
    [
      ['ping', '--rate', '5', '--start', '50', '--max-rate', '10'],
      'LAB_ERR_FLAG_VALUE',
      /--max-rate 10: below the first level's rate \(--start 50\)/,
    ],
  ];
  for (const [args, code, re] of cases) {
    const e = refusalOf(() => plan([...args, ...where()]));
    expect({ args, code: e?.code, exit: e?.exit }).toEqual({ args, code, exit: 2 });
    expect(e.message).toMatch(re);
  }
});

test('--from reads only sweeps of its own settings', () => {
  const from = fs.mkdtempSync(path.join(os.tmpdir(), 'choose-from-'));
  try {
    const dir = path.join(from, 'sweeps', 'replicated');
    fs.mkdirSync(dir, { recursive: true });
    const one = ['--shapes', 'replicated', '--cap', 'replica=25%'];
    const p0 = plan(['ping', '--rate', '5', ...one, ...where()]);
    const settings = {
      slos: ['p99<200', 'errors<1%'],
      caps: p0.caps,
      replicas: [1, 2],
      workers: null,
      words: ['ping', 'endurance'],
      fingerprint: fingerprintOf(p0.sweeps[0].plan),
    };
    fs.writeFileSync(path.join(dir, 'search.json'), JSON.stringify({ settings }));
    fs.writeFileSync(path.join(dir, 'capacity.json'), JSON.stringify({ status: 'completed', scaling: { points: [] } }));
    const p = plan(['ping', '--rate', '5', ...one, '--from', from, ...where()]);
    expect(p.sweeps[0].fromResult.status).toBe('completed');
    const e = refusalOf(() => plan(['ping', '--rate', '5', ...one, '--from', from, '--slo', 'p99<100', ...where()]));
    expect(e).toMatchObject({ code: 'LAB_ERR_FLAG_VALUE' });
    expect(e.message).toMatch(/measured with other settings \(the SLO\)/);
    // Its counts are what it measured, read at any rate; --replicas asks for others: refused.
    expect(plan(['ping', '--rate', '8', ...one, '--from', from, ...where()]).sweeps[0].fromResult.status).toBe(
      'completed',
    );
    expect(
      refusalOf(() => plan(['ping', '--rate', '5', ...one, '--replicas', '1,3', '--from', from, ...where()])).message,
    ).toMatch(/measured with other settings \(the counts \(--replicas\)\)/);
    // A unit the earlier choice screened and did not sweep: read as such, with its reason.
    const was = { screens: [{ id: 'multi-replicated', bound: { text: 'x' } }], candidates: [] };
    was.candidates.push({ sweepId: 'multi-replicated', refused: 'not swept: 2 replica(s) at least' });
    fs.writeFileSync(path.join(from, 'choice.json'), JSON.stringify(was));
    const both = plan(['ping', '--rate', '5', '--cap', 'replica=25%', '--from', from, ...where()]);
    expect(both.sweeps[1].fromResult).toEqual({
      unswept: `the choice in ${from} screened it and did not sweep it: not swept: 2 replica(s) at least`,
    });
  } finally {
    fs.rmSync(from, { recursive: true, force: true });
  }
});

// Another service's sweeps (issue 83): the same path and settings, another --app, or none, or
// stores added: refused, saying what differs. A sweep that kept no fingerprint is refused too.
test("--from refuses another service's sweeps: what was measured is compared, not only the settings", () => {
  const from = fs.mkdtempSync(path.join(os.tmpdir(), 'choose-from-other-'));
  const SHOP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
  const args = (app) => [
    '/price?rounds=600000',
    ...(app ? ['--app', app] : []),
    ...['--rate', '20', '--shapes', 'replicated', '--cap', 'replica=25%'],
  ];
  const sweepOf = (app, more = {}) => {
    const dir = path.join(from, 'sweeps', 'replicated');
    fs.mkdirSync(dir, { recursive: true });
    const p0 = plan([...args(app), ...where()]);
    const s = p0.sweeps[0].plan;
    const settings = {
      slos: s.slos.map((t) => t.text),
      caps: s.values.cap,
      replicas: s.sweep,
      replicasFor: s.countsFor,
      workers: null,
      words: s.words,
      fingerprint: fingerprintOf(s),
      ...more,
    };
    fs.writeFileSync(path.join(dir, 'search.json'), JSON.stringify({ settings }));
    fs.writeFileSync(path.join(dir, 'capacity.json'), JSON.stringify({ status: 'completed', scaling: { points: [] } }));
  };
  try {
    sweepOf(PRICING);
    expect(plan([...args(PRICING), '--from', from, ...where()]).sweeps[0].fromResult.status).toBe('completed');
    for (const [app, re] of [
      [
        SHOP,
        /measured something else: the service, its package.json or lock file \(its dependencies\) differ \(it measured pricing \(node server.js\)\)/,
      ],
      [null, /measured something else: the service, its start line, its package.json or lock file/],
    ]) {
      const e = refusalOf(() => plan([...args(app), '--from', from, ...where()]));
      expect({ app, code: e?.code }).toEqual({ app, code: 'LAB_ERR_FLAG_VALUE' });
      expect(e.message).toMatch(re);
    }
    sweepOf(PRICING, { fingerprint: undefined });
    expect(refusalOf(() => plan([...args(PRICING), '--from', from, ...where()])).message).toMatch(
      /kept no fingerprint/,
    );
  } finally {
    fs.rmSync(from, { recursive: true, force: true });
  }
});

// Found by trying choose as a user would (issue 83): each refused naming the flag as typed, or
// a plan that says what the run will do.
test('refused, naming the flag as typed: what could never give a choice, flags --from would not use, units without theirs', () => {
  const cases = [
    // 7: an endpoint and a script together.
    [
      ['/price', '--script', path.join(ROOT, 'test', 'fixtures', 'scripts', 'shop-flow.yml')],
      'LAB_ERR_USAGE',
      /^--script brings its own requests: give no endpoint with it \(\/price\)/,
    ],
    // 8: no count could be measured to hold 70/s with its headroom under --max-rate 50.
    [
      ['/price', '--max-rate', '50'],
      'LAB_ERR_FLAG_VALUE',
      /^--max-rate 50: below what a count must hold \(--rate 70 with 30% headroom: 91\/s\)/,
    ],
    // 15: counts above --max-replicas, a cap given twice.
    [
      ['/price', '--max-replicas', '2', '--replicas', '1,2,3,4'],
      'LAB_ERR_FLAG_VALUE',
      /^--max-replicas 2: below the counts measured \(1,2,3,4\)/,
    ],
    [['/price', '--cap', 'replica=25%', '--cap', 'replica=10%'], 'LAB_ERR_FLAG_VALUE', /^--cap replica: given twice/],
    // 16: a shape twice, a --from folder that does not exist, short flags as typed.
    [['/price', '--shapes', 'replicated,replicated'], 'LAB_ERR_INVALID_VALUE', /it names replicated twice/],
    [
      ['/price', '--from', '/nonexistent/choice'],
      'LAB_ERR_FLAG_VALUE',
      /^--from \/nonexistent\/choice: no such folder/,
    ],
    [['/price', '-e', 'prod'], 'LAB_ERR_FLAG_NEEDS', /^-e needs --script/],
    [['/price', '-k'], 'LAB_ERR_FLAG_NEEDS', /^-k needs --script/],
    // 11: one bound for workers: a multi-replicated replica has 2 to 32.
    [['/price', '--workers', '1'], 'LAB_ERR_INVALID_VALUE', /--workers="1": expected an integer from 2 to 32/],
    [['/price', '--workers', '33'], 'LAB_ERR_INVALID_VALUE', /--workers="33": expected an integer from 2 to 32/],
    // 12: a percentage with its %, a CPU with its unit, the limit said.
    [['/price', '--headroom', '0.3'], 'LAB_ERR_INVALID_VALUE', /--headroom="0\.3".*"0\.3" has no %: give 0\.3% or 30%/],
    [['/price', '--headroom', '999%'], 'LAB_ERR_INVALID_VALUE', /at most 500%.*999% is out of that range/],
    [
      ['/price', '--cap', 'replica=0.25'],
      'LAB_ERR_INVALID_VALUE',
      /has no unit: give 0\.25% \(a percent of one core\) or 250m/,
    ],
    // 10: an SLO no run can hold.
    [['/price', '--slo', 'p99<0'], 'LAB_ERR_FLAG_VALUE', /--slo "p99<0": no run can hold it/],
  ];
  for (const [args, code, re] of cases) {
    const e = refusalOf(() => plan([...args, '--app', PRICING, '--rate', '70', ...where()]));
    expect({ args, code: e?.code, exit: e?.exit }).toEqual({ args, code, exit: 2 });
    expect({ args, message: e.message }).toEqual({ args, message: expect.stringMatching(re) });
  }
});

test('--from takes none of the search flags it would not use, and says which', () => {
  const from = fs.mkdtempSync(path.join(os.tmpdir(), 'choose-from-flags-'));
  for (const flags of [['--start', '5'], ['--precision', '0.05'], ['--fresh-per-level'], ['--max-levels', '5']]) {
    const e = refusalOf(() => plan(['ping', '--rate', '5', '--from', from, ...flags, ...where()]));
    expect({ flags, code: e?.code }).toEqual({ flags, code: 'LAB_ERR_FLAGS_EXCLUDE' });
    expect(e.message).toMatch(
      new RegExp(`^--from and ${flags[0]} exclude each other: --from reads sweeps already measured`),
    );
  }
});

test('units as a user means them: 30% and 5%, 250m; the plan says no fit for fewer than 4 counts, quotes its commands, and prints JSON', () => {
  const p = plan([
    '/price?rounds=600000',
    ...flagsOf({
      app: PRICING,
      rate: 10,
      headroom: '20%',
      precision: '5%',
      cap: 'replica=250m',
      slo: 'p99<300',
      replicas: '1,2,3',
    }),
    ...where(),
  ]);
  expect(p.headroom).toBe(0.2);
  expect(p.capPct).toBe(25);
  expect(p.sweeps[0].plan.precision).toBe(0.05);
  const text = planText(p);
  expect(text).toMatch(
    /predict: nothing: 3 count\(s\) \(--replicas 1,2,3\) give no fit of the scaling law \(it needs 4\)/,
  );
  // Its commands paste into a shell: the SLO is not a redirection, the path's ? not a glob.
  expect(text).toMatch(/\(npm run capacity -- '\/price\?rounds=600000' .* --slo 'p99<300' /);
  const json = planJson(p);
  expect(json).toMatchObject({ command: 'choose', rate: 10, headroomPct: 20, want: 12, counts: [1, 2, 3] });
  expect(json.sweeps.map((s) => s.id)).toEqual(['replicated', 'multi-replicated']);
  expect(json.expected.aboutS).toBeLessThanOrEqual(json.expected.atMostS);
  expect(json.text).toBe(text);
});

test("the check holds the rate, then the rate with its headroom, on enough answers for the SLO's percentile", () => {
  const p = plan(['ping', ...flagsOf({ rate: 20, headroom: '50%', hold: '10s' }), ...where()]);
  expect(planJson(p).check).toMatchObject({ rate: 20, headroomRate: 30, holdS: 10 });
  expect(planText(p)).toMatch(/held at 20\/s for 0:10 \(--hold\), then at 30\/s \(the rate with its 50% headroom/);
  // No headroom asked: one level, and the plan says no second.
  const none = plan(['ping', ...flagsOf({ rate: 20, headroom: '0%', hold: '10s' }), ...where()]);
  expect(planJson(none).check.headroomRate).toBeNull();
  expect(planText(none)).not.toMatch(/then at [\d.]+\/s \(the rate with its/);
  // 20/s for 4 s is 80 answers: too few for a p99 (100 at least).
  const short = refusalOf(() => plan(['ping', ...flagsOf({ rate: 20, hold: '4s' }), ...where()]));
  expect(short).toMatchObject({ code: 'LAB_ERR_FLAG_VALUE' });
  expect(short.message).toMatch(
    /--hold 4 s: too short for the check's percentile: 20\/s for 4 s gives 80 answers, and p99<200 and errors<1% needs 100 at least; give --hold 5s or more/,
  );
});
