'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { joinThenExec } = require('../../../lab/ownership/join-then-exec');

// Plain files stand for the groups' cgroup.procs (what the shell does is the same: it writes
// its pid to each), so this runs anywhere; test/lab/runtime/cgroups.e2e.test.js joins the
// machine's own groups as root.
test('a process is born in its groups: a shell joins them, then becomes the program', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-join-'));
  const procs = ['cpu', 'memory'].map((c) => path.join(dir, `${c}.procs`));
  for (const f of procs) fs.writeFileSync(f, '');
  const { command, args, env } = joinThenExec(procs, '/bin/sh', ['-c', 'echo $$']);
  const r = spawnSync(command, args, { env: { ...env, PATH: process.env.PATH }, encoding: 'utf8' });
  expect(r.status).toBe(0);
  // exec kept the pid: the program that ran is the process that joined.
  for (const f of procs) expect(fs.readFileSync(f, 'utf8').trim()).toBe(r.stdout.trim());
  // A group that cannot be joined stops the start (exit 97), the program never runs.
  const bad = joinThenExec([path.join(dir, 'missing', 'cgroup.procs')], '/bin/sh', ['-c', 'echo ran']);
  const b = spawnSync(bad.command, bad.args, { env: bad.env, encoding: 'utf8' });
  expect(b.status).toBe(97);
  expect(b.stdout).toBe('');
});

test("a path with a space and arguments with the shell's characters reach the program as they were", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab join '));
  const procs = [path.join(dir, 'cgroup.procs')];
  fs.writeFileSync(procs[0], '');
  const { command, args, env } = joinThenExec(procs, process.execPath, [
    '-e',
    'console.log(JSON.stringify(process.argv.slice(1)))',
    'a b',
    '$HOME',
    '"q"',
  ]);
  const r = spawnSync(command, args, { env, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(JSON.parse(r.stdout)).toEqual(['a b', '$HOME', '"q"']);
});
