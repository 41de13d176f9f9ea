'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, errorCode } = require('../../helper');
const { STUDIES } = require('../../../lab/studies');

// A study folder whose runs are done, made from the cdn fixtures (real runs at --scale 0.1),
// each with the record a study writes beside a finished run (study-run.json).
function doneStudy(scale) {
  const dir = tmpStateDir();
  const mark = (d) => fs.writeFileSync(path.join(d, '.lab-owned'), JSON.stringify({ token: 't' }));
  mark(dir);
  fs.mkdirSync(path.join(dir, 'runs'));
  mark(path.join(dir, 'runs'));
  const settings = { study: 'cdn', scale, rateScale: 1, durationS: null, generator: null, engine: null };
  for (const step of STUDIES.cdn.plan({ scale })) {
    const run = path.join(dir, 'runs', step.id);
    fs.mkdirSync(run);
    mark(run);
    fs.copyFileSync(
      path.join(__dirname, 'fixtures', 'cdn', 'runs', step.id, 'summary.json'),
      path.join(run, 'summary.json'),
    );
    fs.writeFileSync(
      path.join(run, 'study-run.json'),
      JSON.stringify({ study: 'cdn', id: step.id, args: step.args, settings }),
    );
  }
  fs.writeFileSync(path.join(dir, 'study.json'), JSON.stringify(settings));
  return dir;
}
const study = (dir, scale) =>
  lab(['study', 'cdn', '--scale', String(scale), '--dir', dir, '--state-dir', tmpStateDir()]);

describe('a study folder: each run says what it was made with', () => {
  test('study.json deleted: runs made at 0.05 are not adopted by a study at 0.1', async () => {
    const dir = doneStudy(0.05);
    fs.rmSync(path.join(dir, 'study.json'));
    const r = await study(dir, 0.1);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_USAGE' });
    expect(r.stderr).toMatch(/cdn-no-caps was made by the cdn study with scale 0\.05/);
    expect(fs.existsSync(path.join(dir, 'study.html'))).toBe(false);
  });

  test.each([
    ['deleted', (f) => fs.rmSync(f)],
    ['truncated', (f) => fs.writeFileSync(f, '{"study": "cd')],
  ])('study.json %s: the same settings go on with the runs, study.json written again', async (_, damage) => {
    const dir = doneStudy(0.1);
    damage(path.join(dir, 'study.json'));
    const r = await study(dir, 0.1);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/15 of 15 runs done/);
    expect(JSON.parse(fs.readFileSync(path.join(dir, 'study.json'), 'utf8')).scale).toBe(0.1);
    expect(fs.readFileSync(path.join(dir, 'study.md'), 'utf8')).toMatch(/scaled by 0\.1/);
  });

  test('a finished run without its record is not adopted either; --fresh is the way out', async () => {
    const dir = doneStudy(0.1);
    fs.rmSync(path.join(dir, 'runs', 'cdn-2pct-25M', 'study-run.json'));
    const r = await study(dir, 0.1);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_USAGE' });
    expect(r.stderr).toMatch(/cdn-2pct-25M holds results without a record .*--fresh/);
  });
});
