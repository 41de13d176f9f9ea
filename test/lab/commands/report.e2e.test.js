'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, errorCode, startProgram, ownPlace, until, flagsOf, stateOf } = require('../../helper');
const { identify } = require('../../../lab/ownership/identity');

// `report` and `compare` on what a user may hand them: a folder as --out, a file of theirs,
// a records file that links to itself, and a run killed before it wrote its summary.
const FIXTURE = path.join(__dirname, '..', 'studies', 'fixtures', 'course', 'runs', 'ping-load-single');
function copyRun() {
  const dir = path.join(tmpStateDir(), 'run');
  fs.cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}

describe('compare --out', () => {
  test('a folder: a new page inside it (it was "unexpected failure" with no code)', async () => {
    const a = copyRun();
    const out = tmpStateDir();
    const r = await lab(['compare', a, a, '--out', out]);
    expect(r.code).toBe(0);
    expect(path.dirname(r.stdout.trim())).toBe(out);
    expect(fs.readFileSync(r.stdout.trim(), 'utf8')).toMatch(/^<!doctype html>/);
  });

  test('a file the lab did not write is refused and kept; a page the lab wrote is overwritten', async () => {
    const a = copyRun();
    const mine = path.join(tmpStateDir(), 'notes.html');
    fs.writeFileSync(mine, '<p>my notes</p>');
    const r = await lab(['compare', a, a, '--out', mine]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_OURS' });
    expect(fs.readFileSync(mine, 'utf8')).toBe('<p>my notes</p>');
    const page = path.join(tmpStateDir(), 'compare.html');
    expect((await lab(['compare', a, a, '--out', page])).code).toBe(0);
    expect((await lab(['compare', a, a, '--out', page])).code).toBe(0);
  });
});

test('a records.jsonl that links to itself is named, not read as an empty run', async () => {
  const dir = copyRun();
  const records = path.join(dir, 'records.jsonl');
  fs.rmSync(records);
  fs.symlinkSync(records, records);
  const r = await lab(['report', dir]);
  expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 1, code: 'LAB_ERR_RESULTS' });
  expect(r.stderr).toContain(`cannot read ${records}: a link that leads back to itself`);
});

describe('a run killed before it wrote its summary', () => {
  // What the scenario command writes before its load starts (run.json), beside the fixture's files.
  function killedRun(runner) {
    const dir = copyRun();
    const s = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    fs.rmSync(path.join(dir, 'summary.json'));
    fs.rmSync(path.join(dir, 'report.html'), { force: true });
    fs.writeFileSync(
      path.join(dir, 'run.json'),
      JSON.stringify({
        endpoint: s.endpoint,
        scenario: s.scenario,
        deployment: s.deployment,
        target: s.target,
        phases: s.phases.map((p) => ({
          name: p.name,
          duration: p.durationS,
          arrivalRate: p.targetRate.from,
          rampTo: p.targetRate.to,
        })),
        generator: { name: s.generator.name, loop: s.generator.loop },
        thresholds: ['p99<100000'],
        startedAt: s.startedAt,
        runner,
      }),
    );
    return { dir, s };
  }

  test('is reported as interrupted from its records, with its summary written', async () => {
    const { dir, s } = killedRun({ pid: 999999, startTime: '1', boot: 'x' });
    const r = await lab(['report', dir]);
    expect(r.code).toBe(0);
    const rebuilt = JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'));
    expect(rebuilt.status).toBe('interrupted');
    expect(rebuilt.rebuilt).toMatch(/rebuilt from the files of a run/);
    expect(rebuilt.requestsSent).toBe(s.requestsSent);
    expect(rebuilt.responseTimeMs.p99).toBe(s.responseTimeMs.p99);
    expect(rebuilt.thresholds.map((t) => t.ok)).toEqual([true]);
    expect(fs.readFileSync(path.join(dir, 'report.html'), 'utf8')).toMatch(/interrupted/);
  });

  test('one still going is not summarized behind its back', async () => {
    const { dir } = killedRun(identify(process.pid));
    const r = await lab(['report', dir]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_USAGE' });
    expect(r.stderr).toMatch(/is still going \(pid \d+\)/);
    expect(fs.existsSync(path.join(dir, 'summary.json'))).toBe(false);
  });

  // The whole path: a scenario killed with SIGKILL mid-run, then `report` on its folder.
  test('a scenario killed with SIGKILL can be reported, and down stops what it left', async () => {
    const place = await ownPlace();
    const stateDir = stateOf(place);
    const runDir = path.join(tmpStateDir(), 'killed');
    const run = await startProgram(
      'lab/cli',
      [
        'scenario',
        'ping',
        'endurance',
        'single',
        ...flagsOf({ generator: 'fast', duration: '60s', rateScale: 0.05, graphite: false, runDir: runDir }),
        ...place,
      ],
      { ready: (err) => /running ping endurance/.test(err), timeoutMs: 90000 },
    );
    try {
      // Killed once requests went out (a second of the records with one launched): a fixed 3 s
      // after the start line was too early on a busy machine, the run then had sent nothing.
      const records = path.join(runDir, 'records.jsonl');
      const sent = () =>
        fs.existsSync(records) && /"type":"second"[^\n]*"launched":[1-9]/.test(fs.readFileSync(records, 'utf8'));
      expect(await until(sent, 30000)).toBe(true);
      run.child.kill('SIGKILL');
      await run.exited;
      const r = await lab(['report', runDir]);
      expect(r.code).toBe(0);
      const s = JSON.parse(fs.readFileSync(path.join(runDir, 'summary.json'), 'utf8'));
      expect(s.status).toBe('interrupted');
      expect(s.requestsSent).toBeGreaterThan(0);
    } finally {
      const down = await lab(['down', '--state-dir', stateDir]);
      expect(down.code).toBe(0);
    }
  }, 120000);
});

test('down with nothing up says only that', async () => {
  const r = await lab(['down', '--state-dir', tmpStateDir()]);
  expect(r.code).toBe(0);
  expect(r.stdout.trim()).toBe('nothing was up');
  expect(r.stderr).not.toMatch(/stopping the deployment/);
});
