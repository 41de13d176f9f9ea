'use strict';

// scripts/programs.js as scripts/setup.sh runs it: a process of its own.

const path = require('node:path');
const { spawnSync } = require('node:child_process');

const ROOT = path.join(__dirname, '..', '..');
const programs = (...args) =>
  spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'programs.js'), ...args], { encoding: 'utf8' });

test('programs.js prints the packages of a set on one line', () => {
  const r = programs('apt', 'run');
  expect(r.status).toBe(0);
  expect(r.stdout).toBe('nginx libnginx-mod-stream\n');
});

test('programs.js refuses what it does not know, with its usage', () => {
  const r = programs('apt', 'everything');
  expect(r.status).toBe(2);
  expect(r.stderr).toMatch(/^usage: node scripts\/programs\.js apt run\|all/);
});
