'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lockDir, readLock, LOCK } = require('../../../lab/ownership/lock');
const { identify } = require('../../../lab/ownership/identity');
const { codeOf, ROOT } = require('../../helper');

const fresh = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lock-'));

// Another process holding the lock of `dir` until it is killed; resolves once it holds it.
function holder(dir) {
  const code = `const { lockDir } = require(${JSON.stringify(path.join(ROOT, 'lab/ownership/lock'))});
    lockDir(${JSON.stringify(dir)}, '--state-dir', 'deploy single (a test holder)');
    process.stdout.write('held\\n'); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve) => child.stdout.once('data', () => resolve(child)));
}
const exited = (child) => new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)));

describe('one command at a time per folder', () => {
  test('a live holder: refused with LAB_ERR_LOCKED naming its command and pid, the lock untouched', async () => {
    const dir = fresh();
    const child = await holder(dir);
    try {
      let err;
      try {
        lockDir(dir, '--state-dir');
      } catch (e) {
        err = e;
      }
      expect(err.code).toBe('LAB_ERR_LOCKED');
      expect(err.exitCode).toBe(2);
      expect(err.message).toContain('deploy single (a test holder)');
      expect(err.message).toContain(`pid ${child.pid}`);
      expect(readLock(path.join(dir, LOCK)).pid).toBe(child.pid);
    } finally {
      child.kill('SIGKILL');
      await exited(child);
    }
  });

  test('a holder that died (SIGKILL): its stale lock is taken over', async () => {
    const dir = fresh();
    const child = await holder(dir);
    child.kill('SIGKILL');
    await exited(child);
    const lock = lockDir(dir, '--state-dir');
    expect(readLock(path.join(dir, LOCK)).pid).toBe(process.pid);
    lock.release();
    expect(fs.existsSync(path.join(dir, LOCK))).toBe(false);
  });

  test('a recorded pid now used by another process is not a holder; a half-written lock is stale', () => {
    const dir = fresh();
    const me = identify(process.pid);
    // This very pid, but another start time: some other process that took a dead holder's pid.
    fs.writeFileSync(path.join(dir, LOCK), JSON.stringify({ ...me, startTime: '1', command: 'old' }));
    const a = lockDir(dir, '--state-dir');
    expect(a.reentrant).toBe(false);
    a.release();
    fs.writeFileSync(path.join(dir, LOCK), '{"pid": 12');
    const b = lockDir(dir, '--state-dir');
    expect(readLock(path.join(dir, LOCK)).pid).toBe(process.pid);
    b.release();
  });

  test('a command started by the holder goes on under its lock; release leaves a folder it made only if used', () => {
    const parent = fresh();
    const dir = path.join(parent, 'new');
    const outer = lockDir(dir, '--state-dir');
    // The same process (or any descendant) asking again: re-entrant, and its release is a no-op.
    const inner = lockDir(dir, '--state-dir');
    expect(inner.reentrant).toBe(true);
    inner.release();
    expect(fs.existsSync(path.join(dir, LOCK))).toBe(true);
    outer.release();
    // The folder did not exist and holds nothing else: gone again.
    expect(fs.existsSync(dir)).toBe(false);
    expect(codeOf(() => lockDir(path.join(parent, 'x'), '--dir').release())).toBe('accepted');
  });

  // A study killed with SIGKILL left its running scenario without a lock: `down` took the
  // study's stale lock and stopped the child.
  test('a child of a holder that died keeps the folder held while it lives; its mark goes with it', async () => {
    const dir = fresh();
    // A parent that holds the lock and runs a child which takes it too (under the parent's).
    const code = `const { spawn } = require('node:child_process');
      const { lockDir } = require(${JSON.stringify(path.join(ROOT, 'lab/ownership/lock'))});
      lockDir(${JSON.stringify(dir)}, '--state-dir', 'study course (a test parent)');
      const child = spawn(process.execPath, ['-e', \`
        const { lockDir } = require(${JSON.stringify(path.join(ROOT, 'lab/ownership/lock'))});
        const l = lockDir(${JSON.stringify(dir)}, '--state-dir', 'scenario ping load single (its child)');
        process.stdout.write(l.reentrant + ' ' + process.pid + '\\\\n'); setInterval(() => {}, 1000);\`], { stdio: ['ignore', 'inherit', 'inherit'] });
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise((resolve) => parent.stdout.once('data', (d) => resolve(String(d).trim())));
    const [reentrant, childPid] = line.split(' ');
    expect(reentrant).toBe('true');
    expect(fs.existsSync(path.join(dir, `${LOCK}.${childPid}`))).toBe(true);
    parent.kill('SIGKILL');
    await exited(parent);
    try {
      let err;
      try {
        lockDir(dir, '--state-dir');
      } catch (e) {
        err = e;
      }
      expect(err && err.code).toBe('LAB_ERR_LOCKED');
      expect(err.message).toContain('scenario ping load single (its child)');
      expect(err.message).toContain(`pid ${childPid}`);
    } finally {
      process.kill(Number(childPid), 'SIGKILL');
    }
    await new Promise((r) => setTimeout(r, 200));
    // The child gone too: the folder is free, and the dead child's mark is cleared.
    const lock = lockDir(dir, '--state-dir');
    expect(fs.existsSync(path.join(dir, `${LOCK}.${childPid}`))).toBe(false);
    lock.release();
  });
});
