'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { plan, planText } = require('../../../../lab/commands/choose/plan');
const capacityPlan = require('../../../../lab/commands/capacity/plan');
const { ROOT, refusalOf } = require('../../../helper');

const PRICING = path.join(ROOT, 'test', 'fixtures', 'apps', 'pricing');
const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'choose-plan-'))];

test('one sweep a shape, each a capacity command line that capacity itself accepts, the flags passed as typed', () => {
  const p = plan([
    '/price?rounds=600000',
    '--app',
    PRICING,
    '--rate',
    '50',
    '--slo',
    'p99<300',
    '--search-hold=2s',
    '--warmup',
    '1s',
    '--repetitions',
    '1',
    '--header',
    'x-a: 1',
    '--hold',
    '30s',
    ...where(),
  ]);
  expect(p.sweeps.map((s) => [s.id, s.workers])).toEqual([
    ['replicated', 1],
    ['multi-replicated', 2],
  ]);
  const args = p.sweeps[1].argv('/tmp/sweep');
  // choose's --search-hold is capacity's --hold; choose's own --hold (the check's) is not passed.
  expect(args).toEqual(expect.arrayContaining(['--hold', '2s', '--warmup', '1s', '--repetitions', '1']));
  expect(args.filter((a) => a === '--hold')).toHaveLength(1);
  expect(args.join(' ')).toMatch(
    /--deployments multi-replicated --replicas 1,2,3,4 --workers 2 --balancer nginx --cap replica=25% --slo p99<300/,
  );
  expect(args).toEqual(expect.arrayContaining(['--header', 'x-a: 1', '--app', PRICING]));
  const c = capacityPlan.plan(args);
  expect(c.sweep).toEqual([1, 2, 3, 4]);
  expect(c.values.hold).toBe(2);
  expect(p.holdS).toBe(30);
  expect(p.headroom).toBe(0.3);
  expect(planText(p)).toMatch(/a count must be predicted to hold 65\/s/);
  expect(planText(p)).toMatch(/held at 50\/s for 0:30/);
});

test('the defaults said, and the choices the flags make', () => {
  const p = plan([
    'ping',
    '--rate',
    '200',
    '--shapes',
    'replicated',
    '--cap',
    'replica=15%',
    '--headroom',
    '50%',
    '--balancers',
    'nginx,haproxy',
    '--replicas',
    '1,2,4,6',
    ...where(),
  ]);
  expect(p.sweeps.map((s) => s.id)).toEqual(['replicated-nginx', 'replicated-haproxy']);
  expect(p.capPct).toBe(15);
  expect(p.headroom).toBe(0.5);
  expect(p.counts).toEqual([1, 2, 4, 6]);
  expect(p.sweeps[1].argv('/d').join(' ')).toMatch(/--balancer haproxy --cap replica=15%/);
  expect(planText(p)).toMatch(/each replica held to 15% CPU/);
});

test('refused before anything runs, each with its code', () => {
  const cases = [
    [['ping'], 'LAB_ERR_MISSING_ARG', /give the target rate: --rate R/],
    [['--rate', '5'], 'LAB_ERR_MISSING_ARG', /an endpoint, a path of your service or --script/],
    [
      ['ping', '--rate', '5', '--cap', 'nginx=50%'],
      'LAB_ERR_FLAG_VALUE',
      /--cap nginx: a choice's unit of cost is a replica's CPU share/,
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
      /--from \/nonexistent\/choice: it holds no sweep of replicated/,
    ],
    // What a sweep would refuse, capacity's own check says now.
    [
      ['ping', '--rate', '5', '--start', '50', '--max-rate', '10'],
      'LAB_ERR_FLAG_VALUE',
      /--start 50: above --max-rate 10/,
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
    const p0 = plan(['ping', '--rate', '5', '--shapes', 'replicated', ...where()]);
    const settings = {
      slos: ['p99<200', 'errors<1%'],
      caps: p0.caps,
      replicas: [1, 2, 3, 4],
      workers: null,
      words: ['ping', 'endurance'],
    };
    fs.writeFileSync(path.join(dir, 'search.json'), JSON.stringify({ settings }));
    fs.writeFileSync(path.join(dir, 'capacity.json'), JSON.stringify({ status: 'completed', scaling: { points: [] } }));
    const p = plan(['ping', '--rate', '5', '--shapes', 'replicated', '--from', from, ...where()]);
    expect(p.sweeps[0].fromResult.status).toBe('completed');
    const e = refusalOf(() =>
      plan(['ping', '--rate', '5', '--shapes', 'replicated', '--from', from, '--slo', 'p99<100', ...where()]),
    );
    expect(e).toMatchObject({ code: 'LAB_ERR_FLAG_VALUE' });
    expect(e.message).toMatch(/measured with other settings \(the SLO\)/);
  } finally {
    fs.rmSync(from, { recursive: true, force: true });
  }
});
