'use strict';

const { refusalOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { resolveApp } = require('../../../lab/app/contract');

// The contract of your own service, read once before anything starts.
const folder = (files) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'app-'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    fs.writeFileSync(path.join(dir, name), text);
  }
  return dir;
};
const refusal = (o) => refusalOf(() => resolveApp(o));

test("it starts with package.json's start script, else node <main>, else index.js, else --app-cmd", () => {
  const start = folder({ 'package.json': JSON.stringify({ scripts: { start: 'node src/app.js' } }), 'src/app.js': '' });
  expect(resolveApp({ dir: start }).run.node.entry).toBe(path.join(start, 'src', 'app.js'));
  const main = folder({ 'package.json': JSON.stringify({ name: 'shop', main: 'server' }), 'server.js': '' });
  const m = resolveApp({ dir: main });
  expect([m.name, m.line, m.run.node.entry]).toEqual(['shop', 'node server', path.join(main, 'server.js')]);
  const index = folder({ 'package.json': '{}', 'index.js': '' });
  expect(resolveApp({ dir: index }).run.node.entry).toBe(path.join(index, 'index.js'));
  const shell = folder({ 'package.json': JSON.stringify({ scripts: { start: 'npm run build && node dist/x.js' } }) });
  expect(resolveApp({ dir: shell }).run).toEqual({ shell: 'npm run build && node dist/x.js' });
  const bare = folder({ 'app.js': '' });
  expect(resolveApp({ dir: bare, cmd: 'node app.js' }).run.node.entry).toBe(path.join(bare, 'app.js'));
});

test('what it installs: npm ci with a lock file, npm install without, nothing without dependencies', () => {
  const deps = JSON.stringify({ main: 'a.js', dependencies: { ms: '^2.1.3' } });
  expect(resolveApp({ dir: folder({ 'package.json': deps, 'a.js': '', 'package-lock.json': '{}' }) }).install).toBe(
    'ci',
  );
  expect(resolveApp({ dir: folder({ 'package.json': deps, 'a.js': '' }) }).install).toBe('install');
  expect(resolveApp({ dir: folder({ 'package.json': '{"main":"a.js"}', 'a.js': '' }) }).install).toBeNull();
});

test('its hash changes with its files, not with node_modules', () => {
  const dir = folder({ 'package.json': '{"main":"a.js"}', 'a.js': '1' });
  const h1 = resolveApp({ dir }).hash;
  fs.mkdirSync(path.join(dir, 'node_modules', 'x'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'node_modules', 'x', 'i.js'), 'x');
  expect(resolveApp({ dir }).hash).toBe(h1);
  fs.writeFileSync(path.join(dir, 'a.js'), '2');
  // (A file's time has the kernel's coarse granularity: two writes a moment apart may share
  // it, where a user's edit would not.)
  fs.utimesSync(path.join(dir, 'a.js'), new Date(), new Date(Date.now() + 5000));
  expect(resolveApp({ dir }).hash).not.toBe(h1);
});

test('its files are never read: a 3 GB file costs nothing, and the hash is made only when asked', () => {
  const dir = folder({ 'package.json': '{"main":"a.js"}', 'a.js': '1' });
  // Sparse: 3 GB on paper, no disk. Reading it failed ("File size is greater than 2 GiB").
  fs.closeSync(fs.openSync(path.join(dir, 'data.bin'), 'w'));
  fs.truncateSync(path.join(dir, 'data.bin'), 3 * 2 ** 30);
  const read = jest.spyOn(fs, 'readFileSync');
  const app = resolveApp({ dir });
  const before = read.mock.calls.filter(([f]) => String(f).endsWith('data.bin')).length;
  expect(app.hash).toMatch(/^[0-9a-f]{12}$/);
  expect(read.mock.calls.filter(([f]) => String(f).endsWith('data.bin'))).toHaveLength(before);
  expect(before).toBe(0);
  read.mockRestore();
});

test('bad input: one line each, exit 2', () => {
  expect(refusal({ dir: '/no/such/folder' })).toMatchObject({
    exit: 2,
    message: '--app /no/such/folder: no such folder',
  });
  const noPkg = folder({ 'server.js': '' });
  expect(refusal({ dir: noPkg })).toMatchObject({
    exit: 2,
    message: expect.stringMatching(
      /no package\.json, so the lab cannot tell how it starts: give --app-cmd "node server\.js"/,
    ),
  });
  const empty = folder({ 'package.json': '{}' });
  expect(refusal({ dir: empty }).message).toMatch(/no "start" script and no "main", and there is no index\.js/);
  expect(refusal({ dir: folder({ 'package.json': '{not json' }) }).message).toMatch(/package\.json is not valid JSON/);
  expect(refusal({ dir: empty, cmd: 'node missing.js' }).message).toMatch(/starts missing\.js, which is not there/);
  expect(refusal({ dir: empty, cmd: 'node a.js', health: 'health' })).toBeTruthy();
  // An empty --app-cmd is said as such (it read as "no main" in a folder that has one).
  const withMain = folder({ 'package.json': '{"main":"a.js"}', 'a.js': '' });
  expect(refusal({ dir: withMain, cmd: '' })).toMatchObject({
    exit: 2,
    message: expect.stringMatching(/--app-cmd: empty; give the line that starts your service/),
  });
  expect(refusal({ dir: withMain, cmd: '   ' }).message).toMatch(/--app-cmd: empty/);
});
