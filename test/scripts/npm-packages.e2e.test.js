'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../helper');

// scripts/npm-packages.sh, the set-up's npm step, in projects of the test's own with `npm`
// stood in for (it logs each call and makes a tree from the lock): without LAB_NPM_KEEP it
// runs `npm ci` as before; with it, a second fresh clone of the same lock unpacks the kept tree
// instead (its files linked to the kept ones), a changed lock installs again, and only the two
// newest trees it made are kept.
const tmp = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const bin = tmp('fake-npm-');
const calls = path.join(bin, 'calls.txt');
fs.writeFileSync(
  path.join(bin, 'npm'),
  [
    '#!/bin/bash',
    `echo "$PWD $*" >> ${calls}`,
    'rm -rf node_modules && mkdir -p node_modules/left-pad',
    'cp package-lock.json node_modules/.package-lock.json',
    'echo "module.exports = 1" > node_modules/left-pad/index.js',
  ].join('\n'),
  { mode: 0o755 },
);

const npmCalls = () => (fs.existsSync(calls) ? fs.readFileSync(calls, 'utf8').trim().split('\n') : []);

function project(lock) {
  const dir = tmp('npm-project-');
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'npm-packages.sh'), path.join(dir, 'scripts', 'npm-packages.sh'));
  fs.writeFileSync(path.join(dir, 'package-lock.json'), JSON.stringify({ lockfileVersion: 3, packages: lock }));
  return dir;
}

function install(dir, keep) {
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}` };
  delete env.LAB_NPM_KEEP;
  if (keep) env.LAB_NPM_KEEP = keep;
  return spawnSync('bash', [path.join(dir, 'scripts', 'npm-packages.sh')], { encoding: 'utf8', env });
}

const kept = (keep) => fs.readdirSync(keep).filter((f) => /^node_modules-[0-9a-f]{16}$/.test(f));

beforeEach(() => fs.rmSync(calls, { force: true }));

test('without LAB_NPM_KEEP: npm ci when node_modules is missing, nothing when it is current', () => {
  const dir = project({ a: '1' });
  expect(install(dir).status).toBe(0);
  expect(npmCalls()).toEqual([`${dir} ci --no-audit --no-fund --loglevel=error`]);
  expect(install(dir).status).toBe(0);
  expect(npmCalls()).toHaveLength(1);
});

test('with LAB_NPM_KEEP: the same lock in a fresh clone is linked, not installed; the tree is current after it', () => {
  const keep = tmp('npm-keep-');
  const first = project({ a: '1' });
  expect(install(first, keep).status).toBe(0);
  expect(npmCalls()).toHaveLength(1);
  expect(kept(keep)).toHaveLength(1);

  const second = project({ a: '1' });
  const r = install(second, keep);
  expect(r.status).toBe(0);
  expect(npmCalls()).toHaveLength(1);
  expect(r.stderr).toMatch(/^setup: npm packages: linking the tree kept for this lock file/);
  const file = path.join(second, 'node_modules', 'left-pad', 'index.js');
  expect(fs.readFileSync(file, 'utf8')).toBe('module.exports = 1\n');
  // A link to the kept file, not a copy of it (the same file system here).
  expect(fs.statSync(file).ino).toBe(fs.statSync(path.join(keep, kept(keep)[0], 'left-pad', 'index.js')).ino);
  // Newer than the lock, so the next set-up leaves it alone.
  const mtime = (f) => fs.statSync(path.join(second, f)).mtimeMs;
  expect(mtime('node_modules/.package-lock.json')).toBeGreaterThanOrEqual(mtime('package-lock.json'));
  expect(install(second, keep).status).toBe(0);
  expect(npmCalls()).toHaveLength(1);
});

test('a changed lock installs again; two trees kept at most, and nothing else in the folder touched', () => {
  const keep = tmp('npm-keep-');
  const theirs = path.join(keep, 'notes.txt');
  fs.writeFileSync(theirs, 'mine');
  // (A tar an earlier version of the script kept, by its name: its own, removed.)
  const oldTar = path.join(keep, 'node_modules-0123456789abcdef.tar');
  fs.writeFileSync(oldTar, 'tar');
  for (const [i, v] of ['1', '2', '3'].entries()) {
    expect(install(project({ a: v }), keep).status).toBe(0);
    expect(npmCalls()).toHaveLength(i + 1);
    // (ls -t orders by modification time: one second apart, so the oldest is known.)
    spawnSync('sleep', ['1.1']);
  }
  expect(kept(keep)).toHaveLength(2);
  expect(fs.readFileSync(theirs, 'utf8')).toBe('mine');
  expect(fs.existsSync(oldTar)).toBe(false);
  // The oldest (lock 1) went: it installs again; lock 3's is still unpacked.
  expect(install(project({ a: '3' }), keep).status).toBe(0);
  expect(npmCalls()).toHaveLength(3);
  expect(install(project({ a: '1' }), keep).status).toBe(0);
  expect(npmCalls()).toHaveLength(4);
});

test('a kept tree that is not whole: npm ci instead, said, and the tree made again', () => {
  const keep = tmp('npm-keep-');
  expect(install(project({ a: '1' }), keep).status).toBe(0);
  const [tree] = kept(keep);
  fs.rmSync(path.join(keep, tree, '.package-lock.json'));
  const dir = project({ a: '1' });
  const r = install(dir, keep);
  expect(r.status).toBe(0);
  expect(r.stderr).toMatch(/could not link or copy .*: installing with npm ci instead/);
  expect(fs.existsSync(path.join(keep, tree, '.package-lock.json'))).toBe(true);
  expect(npmCalls()).toHaveLength(2);
  expect(fs.existsSync(path.join(dir, 'node_modules', 'left-pad', 'index.js'))).toBe(true);
});
