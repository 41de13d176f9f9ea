'use strict';

const { argvOf, jobOfOptions, COMMANDS } = require('../../../lab/api/options');
const { jobText } = require('../../../lab/run/job');
const capacityPlan = require('../../../lab/capacity/plan');
const scenarioPlan = require('../../../lab/commands/scenario/plan');

// What the command line refuses for `argv`, as { code, message }; null when it takes it.
const refusalOf = (fn) => {
  try {
    fn();
    return null;
  } catch (err) {
    return { code: err.code, message: err.message };
  }
};

test('options become the command line a user would type: words by name, camelCase flags, lists, --json last', () => {
  expect(
    argvOf('capacity', {
      endpoint: '/api/items',
      app: '/srv/shop',
      deployments: ['single', 'replicated'],
      slo: ['p99<500', 'errors<1%'],
      start: 5,
      maxRate: 40,
      repetitions: 1,
      freshPerLevel: true,
      noProbe: false,
    }),
  ).toEqual([
    '/api/items',
    '--app=/srv/shop',
    '--deployments=single,replicated',
    // (--slo is repeatable: once per item, never joined.)
    '--slo=p99<500',
    '--slo=errors<1%',
    '--start=5',
    '--max-rate=40',
    '--repetitions=1',
    '--fresh-per-level',
    '--json',
  ]);
  // The positional words in the command's order, whatever the object's.
  expect(argvOf('scenario', { deployment: 'single', scenario: 'load', endpoint: 'ping', plan: true })).toEqual([
    'ping',
    'load',
    'single',
    '--plan',
    '--json',
  ]);
  expect(argvOf('compare', { runs: ['/tmp/a', '/tmp/b'] })).toEqual(['/tmp/a', '/tmp/b', '--json']);
  // A value that starts with a dash stays a value (--name=value).
  expect(argvOf('scenario', { endpoint: 'ping', scenario: 'load', deployment: 'single', body: '-1' })).toContain(
    '--body=-1',
  );
});

test('a bad value is refused as the command line refuses it: the same schema, the same code and words', () => {
  const typed = refusalOf(() => capacityPlan.COMMAND.parse(['/x', '--max-rate', 'abc']));
  const given = refusalOf(() => argvOf('capacity', { endpoint: '/x', maxRate: 'abc' }));
  expect(typed.code).toBe('LAB_ERR_INVALID_VALUE');
  expect(given).toEqual(typed);
  // The rate's bound is the command's own: what the command line takes, the library takes.
  const { arrivalRate } = require('../../../lab/scenario/limits').LIMITS;
  expect(refusalOf(() => argvOf('capacity', { endpoint: '/x', maxRate: arrivalRate }))).toBeNull();
  expect(refusalOf(() => argvOf('capacity', { endpoint: '/x', maxRate: arrivalRate + 1 }))).toEqual(
    refusalOf(() => capacityPlan.COMMAND.parse(['/x', `--max-rate=${arrivalRate + 1}`])),
  );
  // A flag that needs another (the schema's needs), refused alike.
  const needs = refusalOf(() => scenarioPlan.COMMAND.parse(['ping', 'load', 'single', '--profile-interval', '500']));
  expect(needs.code).toBe('LAB_ERR_FLAG_NEEDS');
  const words = { endpoint: 'ping', scenario: 'load', deployment: 'single' };
  expect(refusalOf(() => argvOf('scenario', { ...words, profileInterval: 500 }))).toEqual(needs);
});

test('an option no flag is: refused with the command line code, named as written, the near one in camelCase', () => {
  const r = refusalOf(() => argvOf('capacity', { endpoint: '/x', maxRat: 40 }));
  expect(r.code).toBe('LAB_ERR_UNKNOWN_FLAG');
  expect(r.message).toMatch(/^unknown option maxRat; did you mean --max-rate\? .*here maxRate\)$/);
  // The library always answers in JSON; its help is docs/api.md.
  expect(refusalOf(() => argvOf('down', { json: true }))?.code).toBe('LAB_ERR_UNKNOWN_FLAG');
  expect(refusalOf(() => argvOf('down', { help: true }))?.code).toBe('LAB_ERR_UNKNOWN_FLAG');
  // capacity's two forms, told apart as the command line tells them: an HTTP search's flag
  // beside --memory is the other form's, said as such.
  expect(refusalOf(() => argvOf('capacity', { memory: '500M', verifyHold: '10m' }))?.code).toBe(
    'LAB_ERR_FLAGS_EXCLUDE',
  );
  expect(argvOf('capacity', { memory: '500M', levels: '100,200' })).toEqual([
    '--memory=500M',
    '--levels=100,200',
    '--json',
  ]);
});

test('a value no flag could be given as: refused, naming the option and what it takes', () => {
  const cases = [
    [{ endpoint: '/x', freshPerLevel: 'yes' }, /lab\.capacity\(\{ freshPerLevel \}\): expected true or false/],
    [{ endpoint: '/x', start: { rate: 5 } }, /\{ start \}\): expected a string, a number, or an array of them/],
    [{ endpoint: '/x', deployments: [] }, /\{ deployments \}\)/],
    [{ endpoint: '-x' }, /\{ endpoint \}\): expected a word \(not starting with -\)/],
  ];
  for (const [options, words] of cases) {
    const r = refusalOf(() => argvOf('capacity', options));
    expect(r).toMatchObject({ code: 'LAB_ERR_OPTION_TYPE' });
    expect(r.message).toMatch(words);
  }
  expect(refusalOf(() => argvOf('down', 'now'))?.code).toBe('LAB_ERR_OPTION_TYPE');
});

test('every command the library gives has its schema and its words', () => {
  expect(Object.keys(COMMANDS).sort()).toEqual(
    ['capacity', 'characterize', 'choose', 'compare', 'down', 'scenario', 'signal', 'study'].sort(),
  );
  for (const [name, def] of Object.entries(COMMANDS)) {
    const schema = def.schema([]);
    expect({ name, parse: typeof schema.parse, kinds: typeof schema.kinds }).toEqual({
      name,
      parse: 'function',
      kinds: 'object',
    });
  }
});

// What the library's child is given (issue 85): the parsed form, as its job, read back by the
// command's own table as the same values: nothing of the options parsed again in the child.
test("each command's options become its job: plain data its own table reads back as parsed; capacity's --memory is signal's", () => {
  const calls = {
    scenario: { endpoint: 'ping', scenario: 'load', deployment: 'single', header: ['x-a: 1'], ensure: 'p99<300' },
    capacity: { endpoint: '/api/items', deployments: ['single', 'replicated'], slo: ['p99<300'], cap: 'replica=25%' },
    choose: { endpoint: '/api/items', rate: 20, sizes: '25%,50%', searchHold: '3s', price: 'cpu=0.04,memory=0.005' },
    study: { study: 'course', scale: 0.1 },
    characterize: { target: 'bbox1', delayScale: 0.2 },
    compare: { runs: ['/tmp/a', '/tmp/b'], failIf: ['p99>+10%'] },
    down: { deleteData: true },
    signal: { memory: '64M', levels: '100,200' },
  };
  for (const [command, options] of Object.entries(calls)) {
    const j = jobOfOptions(command, options, {});
    expect({ command, named: j.command }).toEqual({ command, named: command });
    const schema = COMMANDS[command].schema(j.argv);
    const data = JSON.parse(jobText(j.command, j.job));
    const back = schema.read(data);
    expect({ command, values: back.values }).toEqual({ command, values: schema.parse(j.argv, {}).values });
    expect(back.values.json).toBe(true);
  }
  expect(jobOfOptions('capacity', { memory: '64M' }, {}).command).toBe('signal');
  // (A value read from the child's environment when not given is read from that environment.)
  const ported = jobOfOptions('down', {}, { LAB_STATE_DIR: '/tmp/lab-env-state' });
  expect(ported.job.values['state-dir']).toBe('/tmp/lab-env-state');
});
