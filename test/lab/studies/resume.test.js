'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { isDone, writeRunRecord, readRunRecord, checkSettings } = require('../../../lab/studies/resume');

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'resume-'));
const write = (dir, name, data) => fs.writeFileSync(path.join(dir, name), JSON.stringify(data));

test('a run is done by what its kind of command writes last; a failed or cut scenario is not', () => {
  const dir = tmp();
  expect(isDone(dir, { kind: 'scenario' })).toBe(false);
  write(dir, 'summary.json', { status: 'failed' });
  expect(isDone(dir, { kind: 'scenario' })).toBe(false);
  write(dir, 'summary.json', { status: 'completed' });
  expect(isDone(dir, { kind: 'scenario' })).toBe(true);
  fs.writeFileSync(path.join(dir, 'summary.json'), '{"status": "compl');
  expect(isDone(dir, { kind: 'scenario' })).toBe(false);
  expect(isDone(dir, { kind: 'capacity' })).toBe(false);
  write(dir, 'capacity.json', {});
  expect(isDone(dir, { kind: 'capacity' })).toBe(true);
  write(dir, 'result.json', {});
  expect(isDone(dir, { kind: 'characterize' })).toBe(true);
});

test("a run's record: written into its folder only when the folder is there, read back", () => {
  const dir = tmp();
  const rec = { study: 'course', id: 'ping-ramp-single', args: ['scenario', 'ping'], settings: { scale: 1 } };
  writeRunRecord(dir, rec);
  expect(readRunRecord(dir)).toEqual(rec);
  writeRunRecord(path.join(dir, 'gone'), rec);
  expect(fs.existsSync(path.join(dir, 'gone'))).toBe(false);
  expect(readRunRecord(path.join(dir, 'gone'))).toBeNull();
});

describe('going on with a study folder', () => {
  const settings = { study: 'course', scale: 1 };
  const step = { id: 'a', kind: 'scenario', args: ['scenario', 'ping', 'ramp', 'single'] };
  function folder({ study, run }) {
    const studyDir = tmp();
    const runDir = (s) => path.join(studyDir, 'runs', s.id);
    fs.mkdirSync(runDir(step), { recursive: true });
    if (study !== undefined) fs.writeFileSync(path.join(studyDir, 'study.json'), study);
    if (run) {
      write(runDir(step), 'summary.json', { status: 'completed' });
      if (run.record) writeRunRecord(runDir(step), run.record);
    }
    const check = () => checkSettings(path.join(studyDir, 'study.json'), settings, [step], runDir, studyDir);
    return { check };
  }

  test('the same settings: accepted', () => {
    const record = { study: 'course', args: step.args, settings };
    expect(() => folder({ study: JSON.stringify(settings), run: { record } }).check()).not.toThrow();
  });

  test('other settings: refused, saying which and the way out', () => {
    const f = folder({ study: JSON.stringify({ study: 'course', scale: 0.5 }) });
    expect(f.check).toThrow(/holds the course study with scale 0.5; give the same settings.*--fresh/);
  });

  test('study.json damaged: accepted when every finished run was made this way, refused when one was not', () => {
    const same = { study: 'course', args: step.args, settings };
    expect(() => folder({ study: '{oops', run: { record: same } }).check()).not.toThrow();
    const other = { study: 'course', args: [...step.args, '--rate', '9'], settings };
    expect(folder({ study: '{oops', run: { record: other } }).check).toThrow(/was made by the course study with/);
    expect(folder({ study: '{oops', run: {} }).check).toThrow(/without a record of what they were made with/);
  });
});
