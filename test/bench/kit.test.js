'use strict';

// The benches' kit (bench/kit.js), in this process: a bad flag is refused before anything is
// measured, a result is written with the machine it ran on, a failure is one line and exit 1.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const results = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-results-'));
process.env.LAB_BENCH_RESULTS = results;
const { bench, flag, withDefault } = require('../../bench/kit');

afterAll(() => fs.rmSync(results, { recursive: true, force: true }));

function capture() {
  const out = { stdout: '', stderr: '' };
  const spies = ['stdout', 'stderr'].map((k) =>
    jest.spyOn(process[k], 'write').mockImplementation((text) => {
      out[k] += text;
      return true;
    }),
  );
  return { out, restore: () => spies.forEach((s) => s.mockRestore()) };
}

const seen = [];
const sample = bench({
  name: 'sample',
  usage: 'node bench/sample.js [--seconds 5]',
  flags: { seconds: withDefault(flag.int(1, 60), 5) },
  machine: () => ({ tool: '1.2.3' }),
  async run(values) {
    seen.push(values.seconds);
    if (values.seconds === 13) throw new Error('the target did not answer');
    return { headline: { rate: 10 * values.seconds }, rate: 10 * values.seconds };
  },
});

test('a bench is { name, flags, run } when required: nothing runs', () => {
  expect(Object.keys(sample)).toEqual(['name', 'flags', 'run', 'main']);
  expect(seen).toEqual([]);
});

test('a bad value or flag is refused with exit 2 before anything is measured', async () => {
  const c = capture();
  try {
    expect(await sample.main(['--seconds', 'abc'])).toBe(2);
    expect(await sample.main(['--seconds', '0'])).toBe(2);
    expect(await sample.main(['--frob'])).toBe(2);
  } finally {
    c.restore();
  }
  expect(seen).toEqual([]);
  expect(c.out.stderr.split('\n')).toEqual([
    'bench sample: invalid --seconds="abc": expected an integer from 1 to 60 (see --help)',
    'bench sample: invalid --seconds="0": expected an integer from 1 to 60 (see --help)',
    'bench sample: unknown option --frob (node bench/sample.js --help)',
    '',
  ]);
  expect(fs.existsSync(path.join(results, 'sample.json'))).toBe(false);
});

test('a result is written with the machine it ran on and the date; the headline is printed', async () => {
  const c = capture();
  try {
    expect(await sample.main([])).toBe(0);
  } finally {
    c.restore();
  }
  const file = path.join(results, 'sample.json');
  const r = JSON.parse(fs.readFileSync(file, 'utf8'));
  expect(Object.keys(r)).toEqual(['machine', 'date', 'rate']);
  expect(r.rate).toBe(50);
  expect(r.machine).toMatchObject({ cores: os.cpus().length, node: process.versions.node, tool: '1.2.3' });
  expect(Date.now() - Date.parse(r.date)).toBeLessThan(60000);
  expect(c.out.stdout).toBe(`{"rate":50}\nwritten: ${file}\n`);
});

test('a failure is one line and exit 1, and writes nothing', async () => {
  fs.rmSync(path.join(results, 'sample.json'), { force: true });
  const c = capture();
  try {
    expect(await sample.main(['--seconds', '13'])).toBe(1);
  } finally {
    c.restore();
  }
  expect(c.out.stderr).toBe('bench sample failed: the target did not answer\n');
  expect(fs.existsSync(path.join(results, 'sample.json'))).toBe(false);
});

test('--help prints the usage and measures nothing', async () => {
  const c = capture();
  try {
    expect(await sample.main(['--help'])).toBe(0);
  } finally {
    c.restore();
  }
  expect(c.out.stdout).toBe('usage: node bench/sample.js [--seconds 5]\n');
});

test("childCpu counts a waited-for child's CPU (what the benches charge a C tool with)", () => {
  const { childCpu } = require('../../bench/kit');
  const before = childCpu();
  // A child that spins until it has used 0.4 s of CPU itself (by its own account, so a busy
  // machine only makes it take longer).
  require('node:child_process').spawnSync(process.execPath, ['-e', 'while (process.cpuUsage().user < 400000);']);
  expect(childCpu() - before).toBeGreaterThan(0.2);
});
