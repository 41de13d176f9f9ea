'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('../helper');
const { newToken } = require('../leftovers');

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return !/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};

// npm test's own script, with jest stood in for: the stand-in starts a process of its own
// session (as pm2's daemon is: Ctrl-C's signal to the terminal's group never reaches it),
// which carries the run's token, then waits until it is interrupted.
test('npm test interrupted (Ctrl-C to its group): deployments left taken down, what else a test left running stopped and named, the exit 130', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'test-sh-'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.mkdirSync(path.join(dir, 'test'));
  fs.copyFileSync(path.join(ROOT, 'scripts', 'test.sh'), path.join(dir, 'scripts', 'test.sh'));
  fs.copyFileSync(path.join(ROOT, 'test', 'leftovers.js'), path.join(dir, 'test', 'leftovers.js'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const daemonPid = path.join(dir, 'daemon.pid');
  fs.writeFileSync(
    path.join(bin, 'npx'),
    ['#!/bin/bash', 'setsid sleep 600 < /dev/null > /dev/null 2>&1 &', `echo $! > ${daemonPid}`, 'sleep 600'].join(
      '\n',
    ),
    { mode: 0o755 },
  );
  // A deployment a test left in the suite's scratch folder, and the lab's `down` stood in for:
  // it notes the state folder it was given.
  // (A token of the inner run's own, never the outer suite's: its check must not reach this
  // suite's processes.)
  const token = newToken();
  const state = path.join(dir, `lab-tests-${token}-x`, 'lab-state-a');
  fs.mkdirSync(state, { recursive: true });
  fs.writeFileSync(path.join(state, 'state.json'), '{}');
  fs.mkdirSync(path.join(dir, 'lab', 'cli'), { recursive: true });
  const downs = path.join(dir, 'downs.txt');
  fs.writeFileSync(
    path.join(dir, 'lab', 'cli', 'index.js'),
    `require('fs').appendFileSync(${JSON.stringify(downs)}, process.argv.slice(2).join(' ') + '\\n');`,
  );
  const env = { ...process.env, LAB_TEST_RUN: token, TMPDIR: dir };
  const child = spawn('bash', ['scripts/test.sh'], {
    cwd: dir,
    detached: true,
    env: { ...env, LAB_TEST_SETS: 'e2e', PATH: `${bin}:${process.env.PATH}` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  let pid = null;
  try {
    // (Once it is the stand-in's own process, in its own session: its pid is written when it
    // is forked, before it runs setsid and sleep.)
    const started = () => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0');
      } catch {
        return false;
      }
    };
    for (let i = 0; i < 100 && !(pid && started()); i++) {
      await new Promise((r) => setTimeout(r, 100));
      pid = Number(fs.existsSync(daemonPid) && fs.readFileSync(daemonPid, 'utf8').trim()) || null;
    }
    expect(pid).not.toBeNull();
    expect(started()).toBe(true);
    process.kill(-child.pid, 'SIGINT');
    const end = await exited;
    expect(end).toEqual({ code: 130, signal: null });
    expect(stderr).toMatch(/npm test: interrupted; stopping what the tests left running/);
    expect(stderr).toMatch(new RegExp(`pid ${pid} \\(by its environment\\): sleep 600`));
    expect(alive(pid)).toBe(false);
    expect(fs.readFileSync(downs, 'utf8')).toBe(`down --state-dir ${state}\n`);
  } finally {
    // (The stand-in's process, by the pid it wrote: still up only when the test failed.)
    if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
}, 60000);
