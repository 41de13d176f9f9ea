'use strict';

const fs = require('node:fs');

// Process helpers on Linux's /proc. The lab stops only processes it recorded by pid, never by
// name; these helpers wait for them to be gone.

function isAlive(pid) {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    return err.code === 'EPERM';
  }
  // A zombie has exited; only its parent has not reaped it yet.
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

// { pid: ppid } for every process on the machine.
function parents() {
  const out = new Map();
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(name), Number(rest[1]));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

// pid and all its descendants.
function tree(pid, parentMap = parents()) {
  const children = new Map();
  for (const [p, pp] of parentMap) {
    if (!children.has(pp)) children.set(pp, []);
    children.get(pp).push(p);
  }
  const out = [];
  const stack = [pid];
  while (stack.length) {
    const p = stack.pop();
    if (!parentMap.has(p) && p !== pid) continue;
    out.push(p);
    stack.push(...(children.get(p) || []));
  }
  return out;
}

// Whether any process of the process group `pgid` still runs (zombies are gone).
function groupAlive(pgid) {
  for (const name of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, 'utf8');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(rest[2]) === pgid && rest[0] !== 'Z') return true;
    } catch {
      // gone meanwhile
    }
  }
  return false;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitGone(pids, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (pids.some(isAlive) && Date.now() < deadline) await sleep(50);
  return !pids.some(isAlive);
}

function send(pids, signal) {
  for (const p of pids) {
    try {
      process.kill(p, signal);
    } catch {
      // already gone
    }
  }
}

// Waits for `pids` to be gone; SIGKILL for what is left after timeoutMs.
async function escalate(pids, timeoutMs) {
  if (await waitGone(pids, timeoutMs)) return true;
  send(pids, 'SIGKILL');
  return waitGone(pids, 2000);
}

// Stops pid and its descendants: `signal` to pid first, SIGKILL for what is left after timeoutMs.
async function stopTree(pid, { signal = 'SIGTERM', timeoutMs = 5000 } = {}) {
  if (!isAlive(pid)) return true;
  const pids = tree(pid);
  send([pid], signal);
  return escalate(pids, timeoutMs);
}

// Stops a set of processes the caller proved are its own: SIGTERM to each, then SIGKILL.
async function stopPids(pids, { timeoutMs = 5000 } = {}) {
  send(pids, 'SIGTERM');
  return escalate(pids, timeoutMs);
}

// Stops a child process this one spawned: SIGTERM, SIGKILL after graceMs; resolves on exit.
function stopChild(child, graceMs = 3000) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}

// How long a child the lab waits on (a set-up, an install) has to stop after SIGTERM before
// its whole process group is killed: a set-up that ignored SIGTERM (`trap "" TERM`) once
// held a Ctrl-C for the whole 45 s it had left.
const GRACE_MS = 3000;

// Stops a child spawned `detached` (the leader of its own process group) and everything in
// that group: SIGTERM, then SIGKILL after graceMs, said through `log` when it comes to that.
// Resolves when the child has exited.
function stopGroup(child, { graceMs = GRACE_MS, log = () => {}, what = `process ${child.pid}` } = {}) {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const signal = (sig) => {
      try {
        process.kill(-child.pid, sig);
      } catch {
        // the group is gone
      }
    };
    let exited = false;
    let killed = false;
    const timer = setTimeout(() => {
      killed = true;
      if (groupAlive(child.pid)) {
        log(`${what} did not stop within ${graceMs / 1000} s of SIGTERM: killing its process group (SIGKILL)`);
        signal('SIGKILL');
      }
      if (exited) resolve();
    }, graceMs);
    // Done when the child has exited and nothing of its group runs; a member that outlives it
    // still gets the rest of the grace, then SIGKILL. (Not kill(-pgid, 0): it answers for a
    // zombie, and this sandbox's PID 1 reaps none; waiting on one once never ended, and the
    // lab exited 0 in the middle of its Ctrl-C.)
    child.once('exit', () => {
      exited = true;
      if (!killed && groupAlive(child.pid)) return;
      clearTimeout(timer);
      resolve();
    });
    signal('SIGTERM');
  });
}

module.exports = {
  isAlive,
  parents,
  tree,
  stopTree,
  stopPids,
  stopChild,
  stopGroup,
  groupAlive,
  waitGone,
  sleep,
  GRACE_MS,
};
