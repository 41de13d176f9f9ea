'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { PassThrough } = require('node:stream');
const { writeJob, readJob, readStdinJob, jobInput, jobText, passOn } = require('../../../lab/run/job');
const capacityPlan = require('../../../lab/capacity/plan');
const { COMMAND: SCENARIO } = require('../../../lab/run/scenario-flags');
const { COMMAND: CAPACITY } = require('../../../lab/capacity/plan');
const { resetDir, claimDir, JOB } = require('../../../lab/ownership/dirs');

// A child run's options as a job (issue 85): what the parent parsed comes back in the child as
// the same parsed form, checked by the same flag table, and nothing of a command line is parsed
// again; what does not fit the command is refused by name (LAB_ERR_JOB), never taken.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-job-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const file = (name) => path.join(dir, name);
const codeOf = (fn) => {
  try {
    fn();
  } catch (err) {
    return { code: err.code, message: err.message };
  }
  return null;
};

// A level's scenario, as a capacity search passes it on: caps, headers, statuses, an SLO.
const LEVEL = [
  '/api/items',
  'endurance',
  ...['--target', 'http://127.0.0.1:8080', '--rate', '37.5', '--duration', '23s', '--generator', 'fast'],
  ...['--header', 'x-token: a b', '--expect-status', '200,404', '--ensure', 'p99{GET /api/items}<300'],
  ...['--cap', 'replica=50%,256M', '--no-statsd', '--json', '--state-dir', '/tmp/s', '--port-base', '9100'],
];

test('a job written and read back is the parsed command line: the same values, words and flags given', () => {
  const parsed = SCENARIO.parse(LEVEL);
  writeJob(file('a.json'), 'scenario', SCENARIO.jobOf(parsed));
  const { command, ...job } = readJob(file('a.json'));
  expect(command).toBe('scenario');
  const back = SCENARIO.read(job);
  expect(back.positionals).toEqual(parsed.positionals);
  expect(back.values).toEqual(parsed.values);
  expect([...back.given].sort()).toEqual([...parsed.given].sort());
  expect(Object.isFrozen(back.values)).toBe(true);
  // (A capacity search's own, with lists and percentages.)
  const cap = CAPACITY.parse([
    '/x',
    '--deployments',
    'single,replicated',
    '--cap',
    'replica=25%',
    '--precision',
    '10%',
  ]);
  writeJob(file('b.json'), 'capacity', CAPACITY.jobOf(cap));
  expect(CAPACITY.read(readJob(file('b.json'))).values).toEqual(cap.values);
});

test("a job's values are checked by the command's own table: unknown flags, wrong kinds, bounds, words, needs", () => {
  const { values, given, positionals } = SCENARIO.jobOf(SCENARIO.parse(LEVEL));
  const refused = (job) => codeOf(() => SCENARIO.fromJob({ values, given, positionals, ...job }));
  expect(refused({})).toBeNull();
  for (const [job, why] of [
    [{ values: { ...values, 'no-such': 1 } }, /--no-such is no flag of npm run scenario/],
    [{ values: { ...values, rate: '37.5' } }, /--rate is "37.5": not a number/],
    // (The rate's bound is scenario's own constant, as for the command line.)
    [{ values: { ...values, rate: 50001 } }, /--rate is 50001: above 50000/],
    [{ values: { ...values, 'port-base': 80 } }, /--port-base is 80: below 1024/],
    [{ values: { ...values, 'port-base': 9100.5 } }, /not a whole number/],
    [{ values: { ...values, generator: 'wrk' } }, /--generator is "wrk": not one of/],
    [{ values: { ...values, json: 'yes' } }, /--json is "yes": not true or false/],
    [{ values: { ...values, header: 'x: y' } }, /--header is "x: y": not a list/],
    [{ positionals: ['a', 'b', 'c', 'd'] }, /it has 4 word\(s\)/],
    [{ given: [...given, 'bogus'] }, /--bogus \(given\) is no flag/],
  ]) {
    const r = refused(job);
    expect({ job, code: r?.code }).toEqual({ job, code: 'LAB_ERR_JOB' });
    expect(r.message).toMatch(why);
  }
  // A flag that needs another, given alone in a job, is refused as on the command line.
  const needs = codeOf(() =>
    SCENARIO.fromJob({ values: { ...values, 'pre-stop': 2 }, given: ['pre-stop'], positionals }),
  );
  expect(needs.code).toBe('LAB_ERR_FLAG_NEEDS');
});

test('a file that is no job of this lab is refused by name; a value JSON would change is refused when written', () => {
  const cases = {
    'missing.json': null,
    'text.json': 'not json',
    'other.json': JSON.stringify({ lab: 'job', version: 2, command: 'scenario', given: [] }),
    'nothing.json': JSON.stringify({ lab: 'job', version: 1, given: [] }),
  };
  for (const [name, text] of Object.entries(cases)) {
    if (text !== null) fs.writeFileSync(file(name), text);
    const r = codeOf(() => readJob(file(name)));
    expect({ name, code: r?.code }).toEqual({ name, code: 'LAB_ERR_JOB' });
    expect(r.message).toContain(file(name));
  }
  fs.writeFileSync(file('huge.json'), Buffer.alloc(1024 * 1024 + 1, 32));
  expect(codeOf(() => readJob(file('huge.json'))).message).toMatch(/at most 1048576 bytes/);
  const when = codeOf(() => writeJob(file('c.json'), 'scenario', { values: { at: new Date(0) }, given: [] }));
  expect(when).toMatchObject({ code: 'LAB_ERR_JOB', message: expect.stringMatching(/--at of scenario/) });
  expect(fs.existsSync(file('c.json'))).toBe(false);
});

test("a job in its run's folder stays when the run empties the folder (the lab's own files), nothing else does", () => {
  const run = file('level');
  claimDir(run, 'the level');
  fs.writeFileSync(path.join(run, JOB), '{}');
  fs.writeFileSync(path.join(run, 'summary.json'), '{}');
  resetDir(run, '--run-dir');
  expect(fs.readdirSync(run).sort()).toEqual(['.lab-job.json', '.lab-owned']);
});

test("a parent's part of a child's options leaves what a flag needs to the whole job: a level's --tls-resume and its --target", () => {
  // (The level's words and the flags passed on; the target is the level's, set as a value. A
  // parse of the part alone once refused every TLS study's capacity level.)
  const part = SCENARIO.parsePart(['ping', 'endurance', '--tls-resume', 'off']);
  expect(codeOf(() => SCENARIO.parse(['ping', 'endurance', '--tls-resume', 'off'])).code).toBe('LAB_ERR_FLAG_NEEDS');
  const job = (values) => ({ ...SCENARIO.jobOf(part), values: { ...SCENARIO.jobOf(part).values, ...values } });
  const withTarget = job({ target: 'https://127.0.0.1:8443' });
  withTarget.given.push('target');
  expect(SCENARIO.fromJob(withTarget).values['tls-resume']).toBe('off');
  expect(codeOf(() => SCENARIO.fromJob(job({}))).code).toBe('LAB_ERR_FLAG_NEEDS');
});

// A job on the standard input (`--job -`: a study's group deployed and taken down, with no
// folder of its own to keep the job in): read whole, bounded in size and in time.
const fed = (chunks, { end = true, tty = false } = {}) => {
  const s = new PassThrough();
  s.isTTY = tty;
  for (const c of chunks) s.write(c);
  if (end) s.end();
  return s;
};
const refusedWith = async (p) => {
  try {
    await p;
  } catch (err) {
    return { code: err.code, message: err.message };
  }
  return null;
};

test('a job on the standard input comes back as the parsed form, in pieces or whole; jobInput gives -- job - and its text', async () => {
  const parsed = SCENARIO.parsePart(['ping', 'load', 'single']);
  const { args, input } = jobInput('scenario', SCENARIO, parsed, { json: true, 'state-dir': '/tmp/s' });
  expect(args).toEqual(['--job', '-']);
  const half = Math.floor(input.length / 2);
  const { command, ...job } = await readStdinJob(fed([input.slice(0, half), input.slice(half)]));
  expect(command).toBe('scenario');
  const back = SCENARIO.read(job);
  expect(back.positionals).toEqual(['ping', 'load', 'single']);
  expect(back.values).toMatchObject({ json: true, 'state-dir': '/tmp/s' });
  expect([...back.given]).toEqual(expect.arrayContaining(['json', 'state-dir']));
});

test('a job on the standard input is refused by name: a terminal, not JSON, too large, nothing whole in time', async () => {
  const text = jobText('down', { positionals: [], values: {}, given: [] });
  expect(await refusedWith(readStdinJob(fed([text], { tty: true })))).toMatchObject({
    code: 'LAB_ERR_JOB',
    message: expect.stringMatching(/standard input: it is a terminal/),
  });
  expect(await refusedWith(readStdinJob(fed(['{"lab": "job", '])))).toMatchObject({
    code: 'LAB_ERR_JOB',
    message: expect.stringMatching(/not JSON/),
  });
  const big = Buffer.alloc(256 * 1024, 32);
  expect(await refusedWith(readStdinJob(fed([big, big, big, big, big], { end: false })))).toMatchObject({
    code: 'LAB_ERR_JOB',
    message: expect.stringMatching(/larger than 1048576 bytes/),
  });
  expect(await refusedWith(readStdinJob(fed([text.slice(0, 10)], { end: false }), 50))).toMatchObject({
    code: 'LAB_ERR_JOB',
    message: expect.stringMatching(/nothing whole came within 0.05 s/),
  });
});

// What a parent passes on of what the user typed (lab/run/job.js passOn): where both tables
// hold the same flag, the value parsed once; where they differ (capacity checks --method and
// keeps it as typed, scenario parses it into the request's or the balancer's), the text typed,
// for the child's own table; a flag not given, nothing.
test('passOn: the same flag passes as its value, a different one as the text typed, a switch as true; none not given', () => {
  const typed = [
    '/x',
    ...['--method', 'POST', '--header', 'x-a: 1', '--header', 'x-b: 2', '--tls-resume', 'off', '--profile'],
    ...['--profile-interval', '500', '--cap', 'replica=25%', '--tls'],
  ];
  const parsed = CAPACITY.parse(typed);
  const names = Object.fromEntries(
    ['method', 'header', 'tls-resume', 'profile', 'profile-interval', 'body'].map((n) => [n, n]),
  );
  const passed = passOn(CAPACITY, SCENARIO, parsed, names);
  expect(passed.values).toEqual({ 'tls-resume': 'off', profile: true, 'profile-interval': 500 });
  expect(passed.tokens).toEqual(['--method', 'POST', '--header', 'x-a: 1', '--header', 'x-b: 2']);
  // The child reads both as its own: the method as the request's, the headers as pairs.
  // (With the target a level sets, which --tls-resume needs.)
  const part = SCENARIO.parsePart(['/x', 'endurance', ...passed.tokens]);
  const child = SCENARIO.fromJob({
    positionals: ['/x', 'endurance'],
    values: { ...SCENARIO.jobOf(part).values, ...passed.values, target: 'https://127.0.0.1:8443' },
    given: [...part.given, ...Object.keys(passed.values), 'target'],
  });
  expect(child.values.method).toEqual([{ http: 'POST' }]);
  expect(child.values.header).toEqual([
    ['x-a', '1'],
    ['x-b', '2'],
  ]);
  // A parsed value of another table's shape is never turned into text: the lab's mistake, said.
  expect(() => passOn(CAPACITY, SCENARIO, parsed, { cap: 'cap' })).toThrow(/no text as typed/);
  expect(() => passOn(CAPACITY, SCENARIO, parsed, { slo: 'nothing' })).toThrow(/not a flag of both/);
});

test("a capacity search's levels are given the script's flags and --profile as values, the request's as typed", () => {
  const p = capacityPlan.plan(['/x', '--method', 'PUT', '--body', '{"a":1}', '--profile', '--deployments', 'single']);
  expect(p.levelWords).toEqual(['/x', 'endurance']);
  expect(p.passed.values).toEqual({ profile: true });
  expect(p.passed.tokens).toEqual(['--method', 'PUT', '--body', '{"a":1}']);
});
