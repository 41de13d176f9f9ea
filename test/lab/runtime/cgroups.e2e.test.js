'use strict';

const { onlyWith } = require('../../requires');
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
} = require('../../../lab/runtime/cgroups');
const { spawn } = require('node:child_process');
const { codeOf } = require('../../helper');

const M = 2 ** 20;
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cg-'));
const read = (...p) => fs.readFileSync(path.join(...p), 'utf8');
// A Node program run inside the groups `procs` names: the shell joins them, then becomes it.
const nodeIn = (procs, code) =>
  spawn('/bin/sh', ['-c', `IFS=:; for f in $P; do echo $$ > "$f"; done; exec "$0" -e '${code}'`, process.execPath], {
    env: { P: procs.join(':') },
    stdio: 'ignore',
  });

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

describe('control groups (lab/runtime/cgroups.js)', () => {
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

  test('a CFS period asked with the share (--cap edge=2%/500ms) is written with its quota, v1 and v2', () => {
    const v1 = detect(fakeV1());
    createGroup(v1, 'tok', 'edge-1', { cpuPct: 2, periodUs: 500000, memoryBytes: null });
    const cpu = path.join(v1.dirs.cpu, 'lab-tok', 'edge-1');
    expect(read(cpu, 'cpu.cfs_period_us')).toBe('500000');
    expect(read(cpu, 'cpu.cfs_quota_us')).toBe('10000');
    const root = tmp();
    fs.writeFileSync(path.join(root, 'cgroup.controllers'), 'cpu memory');
    const v2 = detect(root);
    createGroup(v2, 'tok', 'edge-1', { cpuPct: 2, periodUs: 50000, memoryBytes: null });
    expect(read(root, 'lab-tok', 'edge-1', 'cpu.max')).toBe('1000 50000');
    expect(readGroup(v2, 'tok', 'edge-1')).toMatchObject({ cpuPct: 2, periodUs: 50000 });
    expect(cpuQuota(2, 50000)).toEqual({ period: 50000, quota: 1000 });
  });

  test("the throttling counters are read from cpu.stat (v1's throttled_time in ns, v2's in µs)", () => {
    const v1 = detect(fakeV1());
    createGroup(v1, 'tok', 'lb', { cpuPct: 2, memoryBytes: null });
    fs.writeFileSync(
      path.join(v1.dirs.cpu, 'lab-tok', 'lb', 'cpu.stat'),
      'nr_periods 600\nnr_throttled 450\nthrottled_time 39000000000\n',
    );
    expect(readGroup(v1, 'tok', 'lb')).toMatchObject({ periods: 600, throttledPeriods: 450, throttledUs: 39000000 });
    const root = tmp();
    fs.writeFileSync(path.join(root, 'cgroup.controllers'), 'cpu memory');
    const v2 = detect(root);
    createGroup(v2, 'tok', 'lb', { cpuPct: 2, memoryBytes: null });
    fs.writeFileSync(
      path.join(root, 'lab-tok', 'lb', 'cpu.stat'),
      'usage_usec 1200000\nnr_periods 600\nnr_throttled 30\nthrottled_usec 2500000\n',
    );
    expect(readGroup(v2, 'tok', 'lb')).toMatchObject({
      cpuUsageUs: 1200000,
      periods: 600,
      throttledPeriods: 30,
      throttledUs: 2500000,
    });
  });

  test('no cgroup filesystem, or not root: one clear error', () => {
    expect(detect(tmp())).toBe(null);
    expect(codeOf(() => requireCgroups({ root: tmp() }))).toBe('LAB_ERR_CGROUPS');
    expect(codeOf(() => requireCgroups({ root: fakeV1(), uid: 1000 }))).toBe('LAB_ERR_CGROUPS');
    expect(cpuQuota(10)).toEqual({ period: 100000, quota: 10000 });
  });

  // The machine's own cgroups: as root only (CI runs as root; elsewhere this says why).
  const real = detect();
  const asRoot = onlyWith('cgroups');
  asRoot('on this kernel: a group capped, joined, read back and removed', async () => {
    const token = `test${process.pid}`;
    const procs = createGroup(real, token, 'probe', { cpuPct: 10, memoryBytes: 64 * M });
    const child = spawn('/bin/sh', ['-c', 'IFS=:; for f in $P; do echo $$ > "$f"; done; exec sleep 30'], {
      env: { P: procs.join(':') },
      stdio: 'ignore',
    });
    try {
      // Until the child has joined and exec'd sleep (its memory is charged to the group from
      // then): a fixed 300 ms once read 0 bytes, in CI run N, on a machine slow to start it.
      // (10 s at most: the assertions below then say what was missing.)
      const joined = () => {
        try {
          return (
            fs.readFileSync(`/proc/${child.pid}/comm`, 'utf8').trim() === 'sleep' &&
            fs.readFileSync(`/proc/${child.pid}/cgroup`, 'utf8').includes(`lab-${token}/probe`)
          );
        } catch {
          return false;
        }
      };
      for (let waited = 0; !joined() && waited < 10000; waited += 50) await new Promise((r) => setTimeout(r, 50));
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

  // A busy loop under 2% of a core over 50 ms periods: throttled in most of the periods it
  // ran in. The loop runs for 1.5 s of wall time whatever the machine's load, so the counts
  // are bounds (at least 5 periods, over half of them throttled), not exact figures.
  asRoot('on this kernel: a chosen period is taken, and a busy process is counted throttled', async () => {
    const token = `test${process.pid}cfs`;
    const procs = createGroup(real, token, 'spin', { cpuPct: 2, periodUs: 50000, memoryBytes: null });
    expect(readGroup(real, token, 'spin')).toMatchObject({ cpuPct: 2, periodUs: 50000, throttledPeriods: 0 });
    const child = nodeIn(procs, 'const t = Date.now(); while (Date.now() - t < 1500);');
    await new Promise((r) => child.once('exit', r));
    const g = readGroup(real, token, 'spin');
    expect(g.periods).toBeGreaterThanOrEqual(5);
    expect(g.throttledPeriods / g.periods).toBeGreaterThan(0.5);
    expect(g.throttledUs).toBeGreaterThan(0);
    expect((await removeGroups(real, token)).failed).toEqual([]);
  });

  asRoot('on this kernel: a process above its memory cap is OOM-killed, and the group counts it', async () => {
    const token = `test${process.pid}oom`;
    const procs = createGroup(real, token, 'hog', { cpuPct: null, memoryBytes: 16 * M });
    const child = nodeIn(procs, 'Buffer.alloc(64e6, 1); setTimeout(() => {}, 5000)');
    const [, signal] = await new Promise((r) => child.once('exit', (...a) => r(a)));
    expect(signal).toBe('SIGKILL');
    expect(readGroup(real, token, 'hog').oomKills).toBeGreaterThanOrEqual(1);
    expect((await removeGroups(real, token)).failed).toEqual([]);
  });
});
