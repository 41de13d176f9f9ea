'use strict';

const { spawn } = require('node:child_process');
const { identify, check } = require('../../../lab/ownership/identity');
const { findOwned, VAR } = require('../../../lab/ownership/scan');
const { helperEnv } = require('../../../lab/ownership/adopt');

const sleeper = (env = process.env) =>
  spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore', env });
const exited = (child) => new Promise((r) => child.once('exit', r));

describe('process identity', () => {
  test('a living process is alive; another start time or boot is stale; an exited one is gone', async () => {
    const child = sleeper();
    await new Promise((r) => setTimeout(r, 100));
    const id = identify(child.pid);
    expect(id).toMatchObject({ pid: child.pid });
    expect(id.cmdline).toContain('setTimeout');
    expect(check(id)).toBe('alive');
    expect(check({ ...id, startTime: String(Number(id.startTime) + 1) })).toBe('stale');
    expect(check({ ...id, bootId: 'another' })).toBe('stale');
    // The command line is not part of the proof: a process may rewrite it (Redis does).
    expect(check({ ...id, cmdline: 'something else' })).toBe('alive');
    child.kill('SIGKILL');
    await exited(child);
    expect(check(id)).toBe('gone');
    expect(identify(-1)).toBeNull();
    expect(check(null)).toBe('gone');
  });

  test('a process that rewrites its own title after it was recorded is still alive, not stale', async () => {
    const child = spawn(
      process.execPath,
      ['-e', "setTimeout(() => { process.title = 'renamed-server 127.0.0.1:1'; }, 300); setTimeout(() => {}, 60000)"],
      { stdio: 'ignore' },
    );
    try {
      await new Promise((r) => setTimeout(r, 100));
      const id = identify(child.pid);
      const { until } = require('../../helper');
      expect(await until(() => identify(child.pid).cmdline.startsWith('renamed-server'))).toBe(true);
      expect(check(id)).toBe('alive');
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('the token scan finds the processes carrying it (and helpers only when asked), never others', async () => {
    const token = `t${Date.now()}`;
    const owned = sleeper({ ...process.env, [VAR]: token });
    const helper = sleeper(helperEnv({ ...process.env, [VAR]: token }));
    const other = sleeper({ ...process.env, [VAR]: 'someone-else' });
    try {
      await new Promise((r) => setTimeout(r, 150));
      expect(findOwned(token).sort()).toEqual([owned.pid, helper.pid].sort());
      expect(findOwned(token, { helpers: false })).toEqual([owned.pid]);
      expect(findOwned(null)).toEqual([]);
    } finally {
      for (const c of [owned, helper, other]) c.kill('SIGKILL');
    }
  });
});
