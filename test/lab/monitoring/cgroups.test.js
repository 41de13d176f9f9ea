'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const {
  detect,
  requireCgroups,
  createGroup,
  readGroup,
  removeGroups,
  existingGroups,
  cpuQuota,
  joinThenExec,
} = require('../../../lab/monitoring/cgroups');
const { spawnSync } = require('node:child_process');
const { codeOf } = require('../../helper');

const M = 2 ** 20;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cg-'));
const read = (...p) => fs.readFileSync(path.join(...p), 'utf8');

// A directory tree shaped like a cgroup filesystem: what the lab writes can be read back
// without touching the machine's (the kernel's own are tested below, as root).
function fakeV1() {
  const root = tmp();
  for (const c of ['cpu,cpuacct', 'memory', 'pids']) {
    fs.mkdirSync(path.join(root, c));
    fs.writeFileSync(path.join(root, c, 'cgroup.procs'), '');
  }
  fs.symlinkSync(path.join(root, 'cpu,cpuacct'), path.join(root, 'cpu'));
  return root;
}

describe('control groups (lab/monitoring/cgroups.js)', () => {
  test('v1, co-mounted controllers: quota and period, memory limit, one procs file per tree', () => {
    const sys = detect(fakeV1());
    expect(sys.version).toBe(1);
    const procs = createGroup(sys, 'tok', 'edge-1', { cpuPct: 2, memoryBytes: 25 * M });
    expect(procs).toHaveLength(2); // cpu and cpuacct are one tree here
    const cpu = path.join(sys.dirs.cpu, 'lab-tok', 'edge-1');
    expect(read(cpu, 'cpu.cfs_quota_us')).toBe('2000');
    expect(read(cpu, 'cpu.cfs_period_us')).toBe('100000');
    expect(read(sys.dirs.memory, 'lab-tok', 'edge-1', 'memory.limit_in_bytes')).toBe(String(25 * M));
    expect(readGroup(sys, 'tok', 'edge-1')).toMatchObject({ cpuPct: 2, memoryLimitBytes: 25 * M });
  });

  test('v2: cpu.max and memory.max, controllers handed down, no swap past the cap', () => {
    const root = tmp();
    fs.writeFileSync(path.join(root, 'cgroup.controllers'), 'cpu memory');
    const sys = detect(root);
    expect(sys.version).toBe(2);
    // memory.swap.max exists in a real group; made here so the lab sees it.
    fs.mkdirSync(path.join(root, 'lab-tok', 'nginx'), { recursive: true });
    fs.writeFileSync(path.join(root, 'lab-tok', 'nginx', 'memory.swap.max'), 'max');
    const procs = createGroup(sys, 'tok', 'nginx', { cpuPct: 0.5, memoryBytes: 15 * M });
    expect(procs).toEqual([path.join(root, 'lab-tok', 'nginx', 'cgroup.procs')]);
    expect(read(root, 'cgroup.subtree_control')).toBe('+cpu +memory');
    expect(read(root, 'lab-tok', 'cgroup.subtree_control')).toBe('+cpu +memory');
    // Under 1% of a core the period is 1 s, so the quota stays above the kernel's 1 ms.
    expect(read(root, 'lab-tok', 'nginx', 'cpu.max')).toBe('5000 1000000');
    expect(read(root, 'lab-tok', 'nginx', 'memory.max')).toBe(String(15 * M));
    expect(read(root, 'lab-tok', 'nginx', 'memory.swap.max')).toBe('0');
    expect(readGroup(sys, 'tok', 'nginx')).toMatchObject({ cpuPct: 0.5, memoryLimitBytes: 15 * M });
  });

  test('no cgroup filesystem, or not root: one clear error', () => {
    expect(detect(tmp())).toBe(null);
    expect(codeOf(() => requireCgroups({ root: tmp() }))).toBe('LAB_ERR_CGROUPS');
    expect(codeOf(() => requireCgroups({ root: fakeV1(), uid: 1000 }))).toBe('LAB_ERR_CGROUPS');
    expect(cpuQuota(10)).toEqual({ period: 100000, quota: 10000 });
  });

  test('a node is born in its groups: a shell joins them, then becomes the program', async () => {
    const sys = detect(fakeV1());
    const procs = createGroup(sys, 'tok', 'replica-1', { cpuPct: 10, memoryBytes: null });
    const { command, args, env } = joinThenExec(procs, '/bin/sh', ['-c', 'echo $$']);
    const r = spawnSync(command, args, { env: { ...env, PATH: process.env.PATH }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    // exec kept the pid: the program that ran is the process that joined.
    for (const f of procs) expect(read(f).trim()).toBe(r.stdout.trim());
    // A group that cannot be joined stops the start.
    const bad = joinThenExec(['/nonexistent/cgroup.procs'], '/bin/true');
    expect(spawnSync(bad.command, bad.args, { env: bad.env }).status).toBe(97);
  });

  // The machine's own cgroups: as root only (CI runs as root; elsewhere this says why).
  const real = detect();
  const asRoot = real && process.getuid() === 0 ? test : test.skip;
  asRoot('on this kernel: a group capped, joined, read back and removed', async () => {
    const token = `test${process.pid}`;
    const procs = createGroup(real, token, 'probe', { cpuPct: 10, memoryBytes: 64 * M });
    const { spawn } = require('node:child_process');
    const child = spawn('/bin/sh', ['-c', 'IFS=:; for f in $P; do echo $$ > "$f"; done; exec sleep 30'], {
      env: { P: procs.join(':') },
      stdio: 'ignore',
    });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const g = readGroup(real, token, 'probe');
      expect(g).toMatchObject({ cpuPct: 10, memoryLimitBytes: 64 * M, oomKills: 0 });
      expect(g.memoryBytes).toBeGreaterThan(0);
      const own = fs.readFileSync(`/proc/${child.pid}/cgroup`, 'utf8');
      expect(own).toMatch(new RegExp(`lab-${token}/probe`));
      // A group with a member cannot go; the lab says so instead of forcing it.
      const busy = await removeGroups(real, token, { timeoutMs: 200 });
      expect(busy.failed.length).toBeGreaterThan(0);
    } finally {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    const done = await removeGroups(real, token);
    expect(done.failed).toEqual([]);
    expect(existingGroups(real, token)).toEqual([]);
  });

  asRoot('on this kernel: a process above its memory cap is OOM-killed, and the group counts it', async () => {
    const token = `test${process.pid}oom`;
    const procs = createGroup(real, token, 'hog', { cpuPct: null, memoryBytes: 16 * M });
    const { spawn } = require('node:child_process');
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'IFS=:; for f in $P; do echo $$ > "$f"; done; exec "$0" -e "Buffer.alloc(64e6, 1); setTimeout(() => {}, 5000)"',
        process.execPath,
      ],
      { env: { P: procs.join(':') }, stdio: 'ignore' },
    );
    const [, signal] = await new Promise((r) => child.once('exit', (...a) => r(a)));
    expect(signal).toBe('SIGKILL');
    expect(readGroup(real, token, 'hog').oomKills).toBeGreaterThanOrEqual(1);
    expect((await removeGroups(real, token)).failed).toEqual([]);
  });
});
