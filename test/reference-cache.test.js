'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// The conformance references kept between runs (test/reference-cache.js): read back while
// nothing they depend on changed, run again when a fixture (or Artillery, or the server) did.
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'ref-cache-'));
let cache;
beforeAll(() => {
  process.env.LAB_REFERENCE_CACHE = tmp();
  jest.resetModules();
  cache = require('./reference-cache');
});
afterAll(() => delete process.env.LAB_REFERENCE_CACHE);

test('the same fixture reads its reference back; a changed fixture runs it again', async () => {
  const fixtures = tmp();
  fs.writeFileSync(path.join(fixtures, 'a.yml'), 'config: { target: x }\n');
  fs.writeFileSync(path.join(fixtures, 'rows.csv'), 'a,b\n');
  const keyNow = () =>
    cache.referenceKey({ artillery: '2.0.21', name: 'a', args: [], files: cache.folderFiles(fixtures), server: 's' });
  let runs = 0;
  const run = async () => ({ code: 0, lines: [`run ${++runs}`] });
  const first = await cache.cachedReference(keyNow(), run);
  expect(first).toEqual({ code: 0, lines: ['run 1'], cached: false });
  expect(await cache.cachedReference(keyNow(), run)).toEqual({ code: 0, lines: ['run 1'], cached: true });
  // A payload file beside the script changed: a new key, the reference run again.
  fs.writeFileSync(path.join(fixtures, 'rows.csv'), 'a,b\n1,2\n');
  expect(await cache.cachedReference(keyNow(), run)).toEqual({ code: 0, lines: ['run 2'], cached: false });
  expect(runs).toBe(2);
});

test("Artillery's version, the case's flags and the server are in the key", () => {
  const files = [['a.yml', Buffer.from('x')]];
  const base = { artillery: '2.0.21', name: 'a', args: [], files, server: 's' };
  const key = cache.referenceKey(base);
  expect(cache.referenceKey({ ...base })).toBe(key);
  for (const change of [
    { artillery: '2.0.34' },
    { args: ['--insecure'] },
    { server: 't' },
    { name: 'b' },
    { node: 'v0' },
  ])
    expect(cache.referenceKey({ ...base, ...change })).not.toBe(key);
});

test('a reference without the verdict expected is not kept', async () => {
  const key = cache.referenceKey({ artillery: '1', name: 'cut', files: [], server: '' });
  let runs = 0;
  const run = async () => ({ code: null, lines: [], n: ++runs });
  const keep = (r) => r.code === 0;
  await cache.cachedReference(key, run, keep);
  expect((await cache.cachedReference(key, run, keep)).cached).toBe(false);
  expect(runs).toBe(2);
});
