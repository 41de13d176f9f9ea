'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { labError } = require('../../common/errors');

// Per-node CPU and memory caps through Linux control groups, the kernel mechanism Docker
// itself uses. v2 (one unified tree) where it is mounted, v1 (one tree per controller)
// otherwise. Every group the lab makes lives under a parent named after the state folder's
// token, `lab-<token>`, so `down` removes exactly the groups of its own deployment.
//
//   v1: <root>/cpu/lab-<token>/<node>      cpu.cfs_period_us, cpu.cfs_quota_us, cpu.shares
//       <root>/cpuacct/lab-<token>/<node>  cpuacct.usage (read back: the CPU it really got)
//       <root>/memory/lab-<token>/<node>   memory.limit_in_bytes, memory.oom_control
//   v2: <root>/lab-<token>/<node>          cpu.max, cpu.weight, memory.max, cpu.stat, memory.events
//
// A node's process is born inside its groups: a shell joins them and then becomes the
// program (lab/ownership/join-then-exec.js). Joining later would not do: memory a process touched before
// joining stays charged to its old group (v2, and v1 since the kernel dropped
// move_charge_at_immigrate: EINVAL here), and Node's start-up alone is ~40 MiB.
// Children (node:cluster workers, nginx's workers, pm2's restarts) are born inside too.
const ROOT = '/sys/fs/cgroup';
const V1_CONTROLLERS = ['cpu', 'cpuacct', 'memory'];
// CFS periods: 100 ms (the kernel's default); 1 s for caps under 1% of a core, whose quota
// would otherwise be under the kernel's 1 ms minimum.
const PERIOD_US = 100000;
const LONG_PERIOD_US = 1000000;
const MIN_QUOTA_US = 1000;

// A cap is a ceiling, and only that: each CPU-capped node's group weighs in the CPUs'
// share-out what its processes would weigh as plain processes (each one task at the lab's own
// nice), and the lab's parent group the sum of its nodes. Left at the kernel's default, a whole
// deployment weighs one nice-0 task: beside three busy processes on its CPU, a group capped at
// half a core got a quarter of it (and in CI, beside five other files' deployments, capped
// replicas measured half what they hold alone).
// The kernel's weight of a task at each nice value, -20 to 19 (sched_prio_to_weight); 1024 at
// nice 0 is v1's default cpu.shares and v2's cpu.weight 100.
const NICE_WEIGHT = [
  88761, 71755, 56483, 46273, 36291, 29154, 23254, 18705, 14949, 11916, 9548, 7620, 6100, 4904, 3906, 3121, 2501, 1991,
  1586, 1277, 1024, 820, 655, 526, 423, 335, 272, 215, 172, 137, 110, 87, 70, 56, 45, 36, 29, 23, 18, 15,
];
// The weight of `tasks` processes at `nice`, in v1's cpu.shares units.
const weightOf = ({ tasks = 1, nice = os.getPriority() } = {}) =>
  NICE_WEIGHT[Math.min(19, Math.max(-20, nice)) + 20] * Math.max(1, tasks);
// Into each version's file: v1 cpu.shares (2 to 262144), v2 cpu.weight (1 to 10000, 100 = 1024).
const weightFile = (sys) => (sys.version === 2 ? 'cpu.weight' : 'cpu.shares');
const toFile = (sys, shares) =>
  sys.version === 2
    ? Math.min(10000, Math.max(1, Math.round((shares * 100) / 1024)))
    : Math.min(262144, Math.max(2, Math.round(shares)));
const fromFile = (sys, value) => (sys.version === 2 ? (value * 1024) / 100 : value);

const exists = (p) => {
  try {
    fs.accessSync(p);
    return true;
  } catch {
    return false;
  }
};

// Which cgroup filesystem this machine has, or null. v1 controllers may be co-mounted
// (`cpu,cpuacct`): each is found by the names in its mount directory's name.
function detect(root = ROOT) {
  if (exists(path.join(root, 'cgroup.controllers'))) return { version: 2, root };
  let entries;
  try {
    entries = fs.readdirSync(root, { withFileTypes: true });
  } catch {
    return null;
  }
  const dirs = {};
  for (const c of V1_CONTROLLERS) {
    const hit = entries.find(
      (e) =>
        (e.isDirectory() || e.isSymbolicLink()) &&
        e.name.split(',').includes(c) &&
        exists(path.join(root, e.name, 'cgroup.procs')),
    );
    // One tree may have several names (cpu -> cpu,cpuacct): its real path is its identity.
    if (hit) dirs[c] = fs.realpathSync(path.join(root, hit.name));
  }
  if (!dirs.cpu || !dirs.memory) return null;
  if (!dirs.cpuacct) dirs.cpuacct = dirs.cpu;
  return { version: 1, root, dirs };
}

// The cgroup filesystem, checked usable: root, mounted, writable. One clear message if not.
function requireCgroups({ root = ROOT, uid = process.getuid() } = {}) {
  const sys = detect(root);
  if (!sys) throw labError('LAB_ERR_CGROUPS', `no cgroup filesystem (v2, or v1 with cpu and memory) under ${root}`);
  if (uid !== 0) throw labError('LAB_ERR_CGROUPS', 'creating control groups needs root (run as root, or drop --cap)');
  return sys;
}

// The cgroup filesystem when this process may make groups in it (root, mounted), else null:
// for what groups only contain (a replica of your service and whatever it forks), where
// their absence is said rather than refused.
function usableCgroups({ root = ROOT, uid = process.getuid() } = {}) {
  return uid === 0 ? detect(root) : null;
}

const parentName = (token) => `lab-${token}`;

// The directories of one node's groups (one per v1 controller; one in v2).
function groupDirs(sys, token, node) {
  if (sys.version === 2) return { all: path.join(sys.root, parentName(token), node) };
  const out = {};
  for (const c of V1_CONTROLLERS) out[c] = path.join(sys.dirs[c], parentName(token), node);
  return out;
}

// The period: the one asked (--cap edge=2%/50ms, checked against the kernel's limits when
// parsed), else the kernel's default, else 1 s for a share too small for it.
function cpuQuota(cpuPct, periodUs = null) {
  const period = periodUs ?? ((cpuPct / 100) * PERIOD_US >= MIN_QUOTA_US ? PERIOD_US : LONG_PERIOD_US);
  return { period, quota: Math.round((cpuPct / 100) * period) };
}

const write = (dir, file, value) => {
  try {
    fs.writeFileSync(path.join(dir, file), String(value));
  } catch (err) {
    throw labError('LAB_ERR_CGROUPS', `cannot write ${value} to ${path.join(dir, file)}: ${err.code || err.message}`);
  }
};

// Makes one node's groups with its cap ({ cpuPct, memoryBytes }, either may be null) and, when
// capped in CPU, its weight (`weight`: { tasks, nice }, its processes and theirs, by default
// one of the lab's own), and returns the cgroup.procs files its processes join.
// (A group that only contains, a replica of your service uncapped, keeps the kernel's
// default: weighed as a lab run under nice -10 is, with no ceiling, it could take both cores
// from everything else; the one CI run where it was had another file's p99 over 5 s.)
function createGroup(sys, token, node, cap, weight = {}) {
  const procs = makeGroup(sys, token, node, cap);
  if (cap.cpuPct) {
    write(cpuDir(sys, token, node), weightFile(sys), toFile(sys, weightOf(weight)));
    weighParent(sys, token);
  }
  return procs;
}

// The directory holding a node's CPU files (its parent's: node null).
const cpuDir = (sys, token, node) =>
  path.join(sys.version === 2 ? sys.root : sys.dirs.cpu, parentName(token), ...(node ? [node] : []));

// The parent's weight: the sum of its nodes' (once a CPU-capped one is added or removed; a
// deployment with none keeps the kernel's default, as before weights were written).
function weighParent(sys, token) {
  const parent = cpuDir(sys, token, null);
  let sum = 0;
  for (const e of fs.readdirSync(parent, { withFileTypes: true })) {
    const own = e.isDirectory() && readNumber(path.join(parent, e.name, weightFile(sys)));
    if (own) sum += fromFile(sys, own);
  }
  if (sum) write(parent, weightFile(sys), toFile(sys, sum));
}

function makeGroup(sys, token, node, cap) {
  const dirs = groupDirs(sys, token, node);
  if (sys.version === 2) {
    const parent = path.dirname(dirs.all);
    fs.mkdirSync(parent, { recursive: true });
    // The controllers must be handed down from the root to our parent to our node.
    for (const d of [sys.root, parent]) write(d, 'cgroup.subtree_control', '+cpu +memory');
    fs.mkdirSync(dirs.all, { recursive: true });
    if (cap.cpuPct) setCpu(sys, token, node, cap);
    if (cap.memoryBytes) {
      write(dirs.all, 'memory.max', cap.memoryBytes);
      // Docker's --memory without --memory-swap allows as much swap again; we allow none,
      // so the cap is the cap.
      if (exists(path.join(dirs.all, 'memory.swap.max'))) write(dirs.all, 'memory.swap.max', 0);
    }
    return [path.join(dirs.all, 'cgroup.procs')];
  }
  for (const d of Object.values(dirs)) fs.mkdirSync(d, { recursive: true });
  if (cap.cpuPct) setCpu(sys, token, node, cap);
  if (cap.memoryBytes) {
    write(dirs.memory, 'memory.limit_in_bytes', cap.memoryBytes);
    // With swap accounting, the same figure for memory + swap: no swapping past the cap.
    if (exists(path.join(dirs.memory, 'memory.memsw.limit_in_bytes'))) {
      write(dirs.memory, 'memory.memsw.limit_in_bytes', cap.memoryBytes);
    }
  }
  return [...new Set(Object.values(dirs))].map((d) => path.join(d, 'cgroup.procs'));
}

// Sets (cap: { cpuPct, periodUs }) or lifts (cap null) a live group's CPU quota: the
// processes inside keep running, only their allowance changes (a cache warmed at full speed,
// then measured under its cap).
function setCpu(sys, token, node, cap) {
  const dirs = groupDirs(sys, token, node);
  if (sys.version === 2) {
    if (!cap || !cap.cpuPct) return write(dirs.all, 'cpu.max', 'max');
    const { period, quota } = cpuQuota(cap.cpuPct, cap.periodUs);
    return write(dirs.all, 'cpu.max', `${quota} ${period}`);
  }
  // Lifted first: a quota the new period could not hold beside the old one is refused.
  write(dirs.cpu, 'cpu.cfs_quota_us', -1);
  if (!cap || !cap.cpuPct) return undefined;
  const { period, quota } = cpuQuota(cap.cpuPct, cap.periodUs);
  write(dirs.cpu, 'cpu.cfs_period_us', period);
  return write(dirs.cpu, 'cpu.cfs_quota_us', quota);
}

const readText = (file) => {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return null;
  }
};
const readNumber = (file) => {
  const t = readText(file);
  return t === null ? null : Number(t.trim());
};
const field = (text, key) => {
  const m = text && new RegExp(`^${key} (\\d+)$`, 'm').exec(text);
  return m ? Number(m[1]) : null;
};

// What the kernel says about one node's groups: the caps as set, CPU time used, the CFS
// periods and how many of them were throttled (and for how long), the group's own memory now
// and at its peak (exact, unlike RSS summed over its processes), and how many processes the
// OOM killer killed at the cap.
function readGroup(sys, token, node) {
  const dirs = groupDirs(sys, token, node);
  if (sys.version === 2) {
    const d = dirs.all;
    const max = readText(path.join(d, 'cpu.max'));
    const [q, p] = (max || 'max 100000').trim().split(' ');
    const mem = readText(path.join(d, 'memory.max'));
    const stat = readText(path.join(d, 'cpu.stat'));
    return {
      cpuPct: q === 'max' ? null : (Number(q) / Number(p)) * 100,
      periodUs: Number(p),
      memoryLimitBytes: !mem || mem.trim() === 'max' ? null : Number(mem),
      cpuUsageUs: field(stat, 'usage_usec'),
      periods: field(stat, 'nr_periods'),
      throttledPeriods: field(stat, 'nr_throttled'),
      throttledUs: field(stat, 'throttled_usec'),
      memoryBytes: readNumber(path.join(d, 'memory.current')),
      memoryPeakBytes: readNumber(path.join(d, 'memory.peak')),
      oomKills: field(readText(path.join(d, 'memory.events')), 'oom_kill'),
    };
  }
  const quota = readNumber(path.join(dirs.cpu, 'cpu.cfs_quota_us'));
  const period = readNumber(path.join(dirs.cpu, 'cpu.cfs_period_us'));
  const limit = readNumber(path.join(dirs.memory, 'memory.limit_in_bytes'));
  const usage = readNumber(path.join(dirs.cpuacct, 'cpuacct.usage'));
  const stat = readText(path.join(dirs.cpu, 'cpu.stat'));
  const throttledNs = field(stat, 'throttled_time');
  return {
    cpuPct: quota === null || quota < 0 ? null : (quota / period) * 100,
    periodUs: period,
    periods: field(stat, 'nr_periods'),
    throttledPeriods: field(stat, 'nr_throttled'),
    throttledUs: throttledNs === null ? null : throttledNs / 1000,
    // The kernel's "no limit" is a huge page-aligned number.
    memoryLimitBytes: limit === null || limit >= 2 ** 60 ? null : limit,
    cpuUsageUs: usage === null ? null : usage / 1000,
    memoryBytes: readNumber(path.join(dirs.memory, 'memory.usage_in_bytes')),
    memoryPeakBytes: readNumber(path.join(dirs.memory, 'memory.max_usage_in_bytes')),
    oomKills: field(readText(path.join(dirs.memory, 'memory.oom_control')), 'oom_kill'),
  };
}

// The lab's parent groups of this token, one per tree (v1) or one (v2).
function parentDirs(sys, token) {
  if (sys.version === 2) return [path.join(sys.root, parentName(token))];
  return [...new Set(V1_CONTROLLERS.map((c) => path.join(sys.dirs[c], parentName(token))))];
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Removes every group of this token (its processes must be gone: a group with a live member
// cannot be removed). A just-killed process leaves its group a moment later, hence retries.
// Returns the directories removed and those that could not be, with why.
async function removeGroups(sys, token, { timeoutMs = 3000 } = {}) {
  const removed = [];
  const failed = [];
  for (const parent of parentDirs(sys, token).filter(exists)) {
    let children;
    try {
      children = fs
        .readdirSync(parent, { withFileTypes: true })
        .filter((e) => e.isDirectory())
        .map((e) => path.join(parent, e.name));
    } catch (err) {
      // Removed meanwhile (by another process stopping the same groups): nothing left to do.
      if (err.code === 'ENOENT') continue;
      throw err;
    }
    for (const dir of [...children, parent]) await removeDir(dir, timeoutMs, removed, failed);
  }
  return { removed, failed };
}

// One group's folder, retried while it is busy (a just-killed member leaves it a moment
// later), into `removed` or, past the time-out or for another error, `failed` with why.
async function removeDir(dir, timeoutMs, removed, failed) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      fs.rmdirSync(dir);
      removed.push(dir);
      return;
    } catch (err) {
      if (err.code === 'ENOENT') return;
      if (err.code !== 'EBUSY' || Date.now() > deadline) {
        failed.push({ dir, error: err.code || err.message });
        return;
      }
      await sleep(100);
    }
  }
}

// One node's groups, once its processes are gone (a replica the autoscaler or a rollout
// removed): its processes first, each still inside SIGKILLed (the node was stopped, its
// members have nothing left to finish), then its folders. -> { removed, failed }
async function removeGroup(sys, token, node, { timeoutMs = 3000 } = {}) {
  const dirs = [...new Set(Object.values(groupDirs(sys, token, node)))].filter(exists);
  const capped = dirs.length > 0 && readGroup(sys, token, node).cpuPct !== null;
  const removed = [];
  const failed = [];
  for (const dir of dirs) {
    for (const line of (readText(path.join(dir, 'cgroup.procs')) || '').split('\n')) {
      if (!/^\d+$/.test(line)) continue;
      try {
        process.kill(Number(line), 'SIGKILL');
      } catch {
        // gone meanwhile
      }
    }
    await removeDir(dir, timeoutMs, removed, failed);
  }
  // The parent weighs what its remaining nodes do. (Its removal is not failed for it.)
  try {
    if (capped && exists(cpuDir(sys, token, null))) weighParent(sys, token);
  } catch {
    // the parent went meanwhile (down), or would not take the figure: its nodes still count
  }
  return { removed, failed };
}

// Every process inside the token's groups: born there (lab/ownership/join-then-exec.js) or forked by one that
// was, so the lab started each of them, even a daemon that detached itself with setsid and
// a scrubbed environment (a double fork: parent 1, no token to find it by).
function groupMembers(sys, token) {
  const pids = new Set();
  for (const parent of parentDirs(sys, token).filter(exists)) {
    let children;
    try {
      children = fs.readdirSync(parent, { withFileTypes: true }).filter((e) => e.isDirectory());
    } catch {
      continue;
    }
    for (const dir of [...children.map((e) => path.join(parent, e.name)), parent]) {
      for (const line of (readText(path.join(dir, 'cgroup.procs')) || '').split('\n')) {
        if (/^\d+$/.test(line)) pids.add(Number(line));
      }
    }
  }
  return [...pids];
}

// The token's groups that exist (for `status` and tests).
const existingGroups = (sys, token) => parentDirs(sys, token).filter(exists);

module.exports = {
  weightOf,
  detect,
  requireCgroups,
  usableCgroups,
  groupMembers,
  createGroup,
  setCpu,
  readGroup,
  removeGroups,
  removeGroup,
  existingGroups,
  groupDirs,
  cpuQuota,
  ROOT,
};
