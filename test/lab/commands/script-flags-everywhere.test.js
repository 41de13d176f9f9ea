'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const capacityPlan = require('../../../lab/capacity/plan');
const choosePlan = require('../../../lab/commands/choose/plan');
const { studyPlan, COMMAND: STUDY } = require('../../../lab/commands/study/plan');
const scenarioPlan = require('../../../lab/commands/scenario/plan');
const { readScript } = require('../../../lab/scenario/from-artillery');
const { ROOT, refusalOf, flagsOf } = require('../../helper');
const { stepJob } = require('../../../lab/studies/step-job');
const { readJob } = require('../../../lab/run/job');

// Artillery's run flags on every command that takes --script (issue 74): capacity, choose and
// the studies of your service read the script with them, as scenario --script does, and pass
// them on to every run they start, so that each run reads the script the same way.
const APP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'script-flags-'));
const SCRIPT = path.join(dir, 'shop.yml');
fs.writeFileSync(
  SCRIPT,
  `config:
  target: http://127.0.0.1:1
  phases: [{ duration: 10, arrivalRate: 5 }]
  environments:
    staging:
      variables: { id: 7 }
scenarios:
  - name: browse
    flow:
      - get: { url: "/api/items/{{ id }}" }
  - name: buy
    flow:
      - post: { url: "/api/cart", json: { id: 1 } }
`,
);
const ENV = path.join(dir, 'lab.env');
fs.writeFileSync(ENV, 'TOKEN=abc\n');
const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'script-flags-state-'))];
const FLAGS = [
  '-e',
  'staging',
  '--scenario-name',
  'browse',
  '--dotenv',
  ENV,
  '-k',
  '--overrides',
  '{"config":{"http":{"timeout":5}}}',
];
const TYPED = [
  ...flagsOf({
    environment: 'staging',
    overrides: '{"config":{"http":{"timeout":5}}}',
    dotenv: ENV,
    scenarioName: 'browse',
    insecure: true,
  }),
];

test("capacity --script: the script read with the flags, every level's run given them, --plan saying so", () => {
  const p = capacityPlan.plan(['--script', SCRIPT, '--app', APP, '--deployments', 'single', ...FLAGS, ...where()]);
  expect(p.words).toEqual(['--script', SCRIPT, ...TYPED]);
  // The model is the one scenario would read: the environment's variable, the one scenario.
  expect(p.model).toEqual(
    readScript(SCRIPT, {
      environment: 'staging',
      scenarioName: 'browse',
      overrides: '{"config":{"http":{"timeout":5}}}',
      env: { TOKEN: 'abc' },
      dotenv: ENV,
    }),
  );
  expect(capacityPlan.planText(p)).toMatch(
    /the script read with --environment staging .*--scenario-name browse --insecure, as every level's run reads it/,
  );
  // A level's own command line is scenario's: it takes the same flags (nothing refused).
  const level = scenarioPlan.plan([...p.words, 'single', '--plan', ...where()]);
  expect(level.model).toEqual(p.model);
  expect(level.values.insecure).toBe(true);
});

test.each([
  [['/api/items', '-e', 'staging'], 'LAB_ERR_FLAG_NEEDS', /^-e needs --script/],
  [['/api/items', '-k'], 'LAB_ERR_FLAG_NEEDS', /^-k needs --script/],
  [['--script', SCRIPT, '--count', '2'], 'LAB_ERR_UNSUPPORTED', /--count/],
  [['--script', SCRIPT, '--variables', '[1]'], 'LAB_ERR_INVALID_VALUE', /--variables '\[1\]': expected a JSON object/],
  [['--script', SCRIPT, '--scenario-name', 'nothing'], 'LAB_ERR_FLAG_VALUE', /nothing/],
])('capacity %j is refused (%s)', (argv, code, message) => {
  const err = refusalOf(() => capacityPlan.plan([...argv, '--app', APP, '--deployments', 'single', ...where()]));
  expect(err).toMatchObject({ code, exit: 2 });
  expect(err.message).toMatch(message);
});

test('choose --script: every sweep and so the check read the script with the flags', () => {
  const p = choosePlan.plan(['--script', SCRIPT, '--app', APP, '--rate', '20', ...FLAGS, ...where()]);
  for (const s of p.sweeps) {
    const args = s.argv('/tmp/sweep');
    expect(args.slice(0, 2 + TYPED.length)).toEqual(['--script', SCRIPT, ...TYPED]);
    // (capacity's own plan of that command line: the words each level's run is given.)
    expect(s.plan.words).toEqual(['--script', SCRIPT, ...TYPED]);
  }
  expect(
    refusalOf(() => choosePlan.plan(['/api/items', '--app', APP, '--rate', '20', '-e', 'staging', ...where()])),
  ).toMatchObject({
    code: 'LAB_ERR_FLAG_NEEDS',
    exit: 2,
  });
});

test("the studies of your service: each run's job carries the flags, as the values parsed; the other studies refuse them", () => {
  const planOf = (argv) => {
    const { values, positionals } = STUDY.parse(argv);
    return studyPlan(values, positionals);
  };
  const { plan, o } = planOf(['deployments', '--app', APP, '--script', SCRIPT, ...FLAGS, '--scale', '0.1', ...where()]);
  expect(o.scriptArgs).toEqual(TYPED);
  // Each run's job read by its own command's table: the script's flags as scenario --script
  // with them would have them (issue 85: as values, never typed again as text).
  const typed = scenarioPlan.COMMAND.parse(['--script', SCRIPT, ...FLAGS, 'single']).values;
  for (const run of plan) {
    const runDir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'script-flags-run-')), run.id);
    const [, file] = stepJob(run.args, {}, runDir, { stateDir: dir, portBase: 21500, host: '127.0.0.1' }, run.values);
    const { command, ...job } = readJob(file);
    const read = (command === 'scenario' ? scenarioPlan.COMMAND : capacityPlan.COMMAND).read(job);
    for (const f of ['script', 'environment', 'scenario-name', 'dotenv', 'insecure', 'overrides'])
      expect({ f, v: read.values[f] }).toEqual({ f, v: typed[f] });
    expect(run.args).not.toContain('--script');
  }
  expect(plan.map((r) => r.args[0])).toEqual(expect.arrayContaining(['scenario', 'capacity']));
  const scaling = planOf(['scaling', '--app', APP, '--script', SCRIPT, '-e', 'staging', ...where()]);
  for (const run of scaling.plan)
    expect(run.values).toMatchObject({ script: SCRIPT, environment: 'staging', app: APP });
  expect(refusalOf(() => planOf(['deployments', '--app', APP, '-e', 'staging', ...where()]))).toMatchObject({
    code: 'LAB_ERR_FLAG_NEEDS',
    exit: 2,
  });
  expect(refusalOf(() => planOf(['course', '-e', 'staging', ...where()]))).toMatchObject({
    code: 'LAB_ERR_STUDY_FLAG',
    exit: 2,
  });
});
