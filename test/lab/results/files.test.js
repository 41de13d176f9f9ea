'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { present, readJson, maybeJson, readJsonLines } = require('../../../lab/results/files');

const dir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'files-'));

test('a JSON file read, or named with what is wrong in it', () => {
  const d = dir();
  fs.writeFileSync(path.join(d, 'ok.json'), '{"a":1}');
  fs.writeFileSync(path.join(d, 'bad.json'), '{"a":');
  expect(readJson(path.join(d, 'ok.json'))).toEqual({ a: 1 });
  expect(() => readJson(path.join(d, 'bad.json'))).toThrow(expect.objectContaining({ code: 'LAB_ERR_RESULTS' }));
  expect(() => readJson(path.join(d, 'bad.json'))).toThrow(/bad\.json.*not valid JSON/);
  expect(() => readJson(path.join(d, 'none.json'))).toThrow(/none\.json.*no such file/);
  expect(maybeJson(path.join(d, 'bad.json'))).toBeNull();
  expect(maybeJson(path.join(d, 'none.json'))).toBeNull();
});

test('a link that leads back to itself is there and unreadable, not missing', () => {
  const d = dir();
  const loop = path.join(d, 'records.jsonl');
  fs.symlinkSync(loop, loop);
  expect(present(loop)).toBe(true);
  expect(() => readJsonLines(loop)).toThrow(/a link that leads back to itself/);
  expect(present(path.join(d, 'nothing'))).toBe(false);
});

test('JSON lines: blank lines skipped, a half-written last line skipped, a bad line before it named', () => {
  const d = dir();
  const f = path.join(d, 'records.jsonl');
  fs.writeFileSync(f, '{"n":1}\n\n{"n":2}\n{"n":');
  expect(readJsonLines(f)).toEqual([{ n: 1 }, { n: 2 }]);
  fs.writeFileSync(f, '{"n":1}\n{oops\n{"n":3}\n{"n":4}\n');
  expect(() => readJsonLines(f)).toThrow(/line 2 is not valid JSON/);
  expect(readJsonLines(path.join(d, 'missing.jsonl'))).toEqual([]);
});
