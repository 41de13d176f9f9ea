'use strict';

const { refusalOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { readScript } = require('../../../lab/scenario/from-artillery');
const { readBody } = require('../../../lab/scenario/request');
const { LIMITS, readBounded } = require('../../../lab/scenario/limits');

// The bounds of what the lab reads and runs (lab/scenario/limits.js): each refused with the
// limit named, before anything starts. Before them, each of these grew memory until killed,
// crashed V8, or ran for days.
const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'limits-'));
const write = (text, name = 'x.yml', where = dir()) => {
  const file = path.join(where, name);
  fs.writeFileSync(file, text);
  return file;
};
const refusal = (fn) => refusalOf(() => fn());
const script = (phase, flow = '[{ get: { url: "/" } }]', config = '') =>
  write(`config: { phases: [ ${phase} ]${config} }\nscenarios: [ { flow: ${flow} } ]\n`);

test('special files are refused, never read: a device, a pipe, a folder', () => {
  expect(refusal(() => readScript('/dev/zero'))).toMatchObject({
    code: 'LAB_ERR_FLAG_VALUE',
    exit: 2,
    message: expect.stringMatching(/not a regular file/),
  });
  const d = dir();
  const fifo = path.join(d, 'pipe.yml');
  execFileSync('mkfifo', [fifo]);
  expect(refusal(() => readScript(fifo)).message).toMatch(/not a regular file/);
  expect(refusal(() => readScript(d)).message).toMatch(/not a regular file/);
  const payload = script(
    '{ duration: 1, arrivalRate: 1 }',
    '[{ get: { url: "/{{ a }}" } }]',
    ', payload: { path: /dev/zero, fields: [a] }',
  );
  expect(refusal(() => readScript(payload))).toMatchObject({
    code: 'LAB_ERR_SCENARIO_FILE',
    message: expect.stringMatching(/payload\.path: \/dev\/zero: not a regular file/),
  });
  expect(refusal(() => readBody('@/dev/zero'))).toMatchObject({
    code: 'LAB_ERR_FLAG_VALUE',
    message: expect.stringMatching(/not a regular file/),
  });
});

test('files over their size limit are refused by size, without reading them', () => {
  const big = write(`# ${'x'.repeat(LIMITS.scriptBytes)}\n`);
  expect(refusal(() => readScript(big)).message).toMatch(/is over the limit of 1 MiB/);
  const file = path.join(dir(), 'huge.csv');
  fs.closeSync(fs.openSync(file, 'w'));
  fs.truncateSync(file, 50 * 2 ** 30); // sparse: 50 GB on paper
  expect(() =>
    readBounded(file, LIMITS.payloadBytes, (why) => {
      throw new Error(why);
    }),
  ).toThrow(/^51200 MiB is over the limit of 64 MiB$/);
});

test('a YAML alias bomb is a malformed scenario file (exit 2), not an unexpected failure', () => {
  const bomb = [
    'a: &a ["x","x","x","x","x","x","x","x","x"]',
    'b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]',
    'c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]',
    'd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]',
    'e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]',
    'f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]',
    'config: { phases: [ { duration: 1, arrivalRate: 1 } ] }',
    'scenarios: [ { flow: [ { get: { url: "/" } } ] } ]',
  ].join('\n');
  expect(refusal(() => readScript(write(bomb)))).toMatchObject({
    code: 'LAB_ERR_SCENARIO_FILE',
    exit: 2,
    message: expect.stringMatching(/aliases expand too far/),
  });
});

test.each([
  [
    'arrivalRate 1e9',
    script('{ duration: 1, arrivalRate: 1000000000 }'),
    /arrivalRate: at most 50000 arrivals a second/,
  ],
  ['rampTo 1e9', script('{ duration: 1, arrivalRate: 1, rampTo: 1000000000 }'), /rampTo: at most 50000/],
  ['arrivalCount 1e9 in 1 s', script('{ duration: 1, arrivalCount: 1000000000 }'), /arrivalCount: at most 50000/],
  ['duration 1e9', script('{ duration: 1000000000, arrivalRate: 1 }'), /duration: at most 24 hours/],
  [
    'phases of 25 h in all',
    script('{ duration: 50000, arrivalRate: 1 }, { duration: 50000, arrivalRate: 1 }'),
    /phases of 24 hours in all at most/,
  ],
  [
    'think 1e9',
    script('{ duration: 1, arrivalRate: 1 }', '[{ get: { url: "/" } }, { think: 1000000000 }]'),
    /think: at most 3600 s/,
  ],
  [
    'a loop of 1e9',
    script('{ duration: 1, arrivalRate: 1 }', '[{ loop: [{ get: { url: "/" } }], count: 1000000000 }]'),
    /count: at most 100000/,
  ],
  [
    'nested loops of 1e10 requests',
    script(
      '{ duration: 1, arrivalRate: 1 }',
      '[{ loop: [{ loop: [{ get: { url: "/" } }], count: 100000 }], count: 100000 }]',
    ),
    /at most 1000000 requests, loops multiplied out/,
  ],
])('%s is refused with the limit named (exit 2)', (_, file, message) => {
  expect(refusal(() => readScript(file))).toMatchObject({
    code: 'LAB_ERR_SCENARIO_FILE',
    exit: 2,
    message: expect.stringMatching(message),
  });
});

test('--rate-scale counts: a rate under the limit scaled past it is refused', () => {
  const file = script('{ duration: 1, arrivalRate: 30000 }');
  expect(readScript(file).phases[0].arrivalRate).toBe(30000);
  expect(refusal(() => readScript(file, { rateScale: 2 })).message).toMatch(/with --rate-scale 2/);
});

test("the docs' table of limits says the limits the code applies", () => {
  const doc = fs.readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'generators-and-scenarios.md'), 'utf8');
  const table = doc.slice(doc.indexOf('### Limits'), doc.indexOf('## One scenario model'));
  const row = (what) => table.split('\n').find((l) => l.includes(what)) || '';
  const mib = (b) => `${b / 2 ** 20} MiB`;
  expect(row('the script file')).toContain(mib(LIMITS.scriptBytes));
  expect(row('each CSV payload')).toContain(mib(LIMITS.payloadBytes));
  expect(row('--body @FILE')).toContain(mib(LIMITS.bodyBytes));
  expect(row('YAML aliases')).toContain(String(LIMITS.aliases));
  expect(row('arrivals a second')).toContain(String(LIMITS.arrivalRate));
  expect(row('all phases together')).toContain(`${LIMITS.planS / 3600} hours`);
  expect(row('one `think`')).toContain(`${LIMITS.thinkS} s`);
  expect(row("`loop`'s `count`")).toContain(String(LIMITS.loopCount));
  expect(row('requests one virtual user')).toContain(String(LIMITS.requestsPerFlow));
  expect(row('kept whole for a capture')).toContain(mib(LIMITS.capturedBodyBytes));
});
