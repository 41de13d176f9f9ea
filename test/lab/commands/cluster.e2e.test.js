'use strict';

const { lab, tmpStateDir, errorCode } = require('../../helper');

// `npm run cluster`'s input, checked before anything is made (the VMs are npm run
// test:cluster's).
describe('npm run cluster: bad input', () => {
  test.each([
    [['cluster'], 'LAB_ERR_MISSING_ARG'],
    [['cluster', 'upp'], 'LAB_ERR_UNKNOWN_NAME'],
    [['cluster', 'up', '--nodes', '0'], 'LAB_ERR_INVALID_VALUE'],
    [['cluster', 'up', '--nodes', '9'], 'LAB_ERR_INVALID_VALUE'],
    [['cluster', 'up', '--memory', '100M'], 'LAB_ERR_FLAG_VALUE'],
    [['cluster', 'up', '--memory', 'lots'], 'LAB_ERR_INVALID_VALUE'],
    [['cluster', 'up', '--accel', 'hvf'], 'LAB_ERR_UNKNOWN_NAME'],
    [['cluster', 'stop-node'], 'LAB_ERR_MISSING_ARG'],
    [['cluster', 'status', '--nodes', '3'], 'LAB_ERR_FLAG_VALUE'],
    [['cluster', 'up', '--purge'], 'LAB_ERR_FLAG_VALUE'],
    [['cluster', 'up', 'extra'], 'LAB_ERR_UNEXPECTED_ARG'],
  ])('%j exits 2 with %s', async (args, code) => {
    const dir = tmpStateDir();
    const r = await lab([...args, '--dir', dir]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code });
    expect(require('node:fs').readdirSync(dir)).toEqual([]);
  });

  test('status with nothing up says so; env names what to do', async () => {
    const dir = tmpStateDir();
    const s = await lab(['cluster', 'status', '--dir', dir]);
    expect([s.code, s.stdout]).toEqual([0, 'no cluster is up (start one with: npm run cluster -- up)\n']);
    const e = await lab(['cluster', 'env', '--dir', dir]);
    expect({ exit: e.code, code: errorCode(e.stderr) }).toEqual({ exit: 1, code: 'LAB_ERR_CLUSTER' });
    expect(e.stderr).toContain('npm run cluster -- up');
    const d = await lab(['cluster', 'down', '--dir', dir]);
    expect(d.stdout).toMatch(/nothing was up/);
  });

  test('--placement is for a swarm; apart needs workers', async () => {
    const r = await lab(['deploy', 'replicated', '--placement', 'apart', '--state-dir', tmpStateDir()]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_FLAG_NEEDS' });
    expect(r.stderr).toContain('--engine swarm');
  });
});

// `cluster down --purge` deleted any folder given as the cache, as root.
// (Every `cluster down --purge` here runs without the LAB_CLUSTER_CACHE of the environment,
// unless the test sets one: CI names the machine's own image cache there, which the test
// with only --dir once purged, beside the cluster suite booting from it.)
describe('cluster down --purge deletes only a cache the lab made', () => {
  const fs = require('node:fs');
  const path = require('node:path');
  const purge = (args, env = {}) =>
    lab(['cluster', 'down', '--purge', ...args], { env: { LAB_CLUSTER_CACHE: undefined, ...env } });
  const foreign = () => {
    const dir = tmpStateDir();
    fs.mkdirSync(path.join(dir, 'keep'));
    return dir;
  };
  test.each([
    ['--cache', (cache, dir) => ['--dir', dir, '--cache', cache], {}],
    ['LAB_CLUSTER_CACHE', (cache, dir) => ['--dir', dir], (cache) => ({ LAB_CLUSTER_CACHE: cache })],
  ])('a folder without its marker given by %s is refused, exit 2, and kept', async (_how, args, env) => {
    const cache = foreign();
    const dir = tmpStateDir();
    const r = await purge(args(cache, dir), typeof env === 'function' ? env(cache) : env);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_OURS' });
    expect(fs.existsSync(path.join(cache, 'keep'))).toBe(true);
    expect(r.stderr).not.toMatch(/removed the image cache/);
  });

  test('--dir X --purge: X/images without a marker is kept; one the lab made is removed', async () => {
    const dir = tmpStateDir();
    fs.mkdirSync(path.join(dir, 'images', 'keep'), { recursive: true });
    const r = await purge(['--dir', dir]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_OURS' });
    expect(fs.existsSync(path.join(dir, 'images', 'keep'))).toBe(true);
    const { claimDir } = require('../../../lab/ownership/dirs');
    const ours = path.join(tmpStateDir(), 'cache');
    claimDir(ours, 'a test cache');
    fs.writeFileSync(path.join(ours, 'base.img'), 'x');
    const ok = await purge(['--dir', tmpStateDir(), '--cache', ours]);
    expect(ok.code).toBe(0);
    expect(ok.stderr).toMatch(/removed the image cache/);
    expect(fs.existsSync(ours)).toBe(false);
  });
});
