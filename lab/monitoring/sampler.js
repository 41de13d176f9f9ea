'use strict';

const fs = require('node:fs');
const { tree, parents } = require('../ownership/procs');

// Reads CPU and resident memory of process trees from /proc, the way cAdvisor reads a
// container's cgroup: CPU% is CPU time used over wall time since the previous sample
// (100 = one core), summed over the tree; RSS is summed too.
const TICKS = 100; // USER_HZ on Linux
const PAGE = 4096;

function readStat(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // fields after the name: state(0) ppid(1) ... utime(11) stime(12) ... rss(21)
    // A zombie keeps its CPU ticks but reports no memory: it has exited, so it is not sampled
    // (seen: the generator's last sample read 0 MiB after Artillery was ended).
    if (f[0] === 'Z') return null;
    return { cpuTicks: Number(f[11]) + Number(f[12]), rssBytes: Number(f[21]) * PAGE, waitNs: readWait(pid) };
  } catch {
    return null;
  }
}

// How long a process has waited, runnable, for a core (ns): /proc/PID/schedstat's second field,
// the scheduler's own run-queue delay. A service slower on a busy machine because it waited for
// a core shows it here; one limited by itself (a timer, a lock, a pool) does not. null where the
// kernel keeps no schedstat.
function readWait(pid) {
  try {
    const f = fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(/\s+/);
    const ns = Number(f[1]);
    return Number.isFinite(ns) ? ns : null;
  } catch {
    return null;
  }
}

// The whole machine: CPU time of all its cores from /proc/stat (busy: all but idle and
// iowait) and the 1-minute load average, so that a run can tell its own processes' CPU from
// other programs' (a generator sending late on a machine busy with other work was blamed for
// it: issue 49).
function readMachine() {
  try {
    const line = fs.readFileSync('/proc/stat', 'utf8').split('\n', 1)[0];
    const f = line.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    const idle = f[3] + (f[4] || 0);
    const load1 = Number(fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
    return { busyTicks: total - idle, load1 };
  } catch {
    return null;
  }
}

// Samples named roots ({ name: pid }) every intervalMs; onSample({ at, nodes: { name:
// { cpuPct, waitPct (its processes' run-queue wait, 100 = one process waiting all along),
// rssMiB, pids, pid (the tree's root), childExits (its own process's children that ended since
// sampling began: a cluster's workers replaced) } }, machine: { cpuPct (every core's busy time, 100 = one core),
// labPct (the lab's own processes that are no node: this one, StatsD, carbon), load1 } }).
// Returns { stop() }.
function startSampler(roots, { intervalMs = 1000, onSample }) {
  let last = null;
  // Each node's direct children (a cluster primary's workers), to count the ones that ended
  // while the node's own process stayed: a worker that crashed and was forked again by its
  // primary, which pm2 (watching the primary) never sees. { [node]: { root, kids: Set, exits } }
  const families = {};
  const tick = () => {
    const now = performance.now();
    const pmap = parents();
    const current = {};
    let r = typeof roots === 'function' ? roots() : roots;
    if (typeof r === 'function') r = r();
    const counted = new Set();
    for (const [name, pid] of Object.entries(r || {})) {
      if (!pid) continue;
      let ticks = 0;
      let rss = 0;
      let live = 0;
      let waitNs = 0;
      let waits = true;
      // (Its own process's live children, from the same reads: a cluster's workers.)
      const kids = new Set();
      for (const p of tree(pid, pmap)) {
        const s = readStat(p);
        if (s) ((ticks += s.cpuTicks), (rss += s.rssBytes), live++);
        if (s && p !== pid && pmap.get(p) === pid) kids.add(p);
        if (s && s.waitNs !== null) waitNs += s.waitNs;
        else if (s) waits = false;
        if (!name.includes('.')) counted.add(p);
      }
      current[name] = { ticks, rss, pids: live, pid, waitNs: waits ? waitNs : null };
      // (A replica's only: a database's backends, or nginx's workers on a reload, come and go
      // by design; a service's cluster workers do not.)
      if (/^replica-\d+$/.test(name)) {
        const f = families[name];
        if (f && f.root === pid) for (const k of f.kids) if (!kids.has(k)) f.exits += 1;
        families[name] = { root: pid, kids, exits: f && f.root === pid ? f.exits : (f?.exits ?? 0) };
      }
    }
    const machine = readMachine();
    // The lab's own processes that are no node (this one, StatsD, carbon): the run's too.
    if (machine) {
      machine.labTicks = 0;
      for (const p of tree(process.pid, pmap)) if (!counted.has(p)) machine.labTicks += readStat(p)?.cpuTicks || 0;
    }
    if (last) {
      const wallS = (now - last.now) / 1000;
      const nodes = {};
      for (const [name, c] of Object.entries(current)) {
        const prev = last.current[name];
        // A restarted process starts its counters again; skip one sample rather than
        // report a negative or inflated figure.
        if (!prev || c.ticks < prev.ticks || c.pids === 0) continue;
        // (Its processes' waits for a core, summed, over wall time: 100 = one process waiting
        // the whole second. Skipped when a process left or came: its counter went with it.)
        const waited = c.waitNs !== null && prev.waitNs !== null && c.pids === prev.pids && c.waitNs >= prev.waitNs;
        nodes[name] = {
          ...(families[name]?.exits ? { childExits: families[name].exits } : {}),
          cpuPct: Math.round(((c.ticks - prev.ticks) / TICKS / wallS) * 1000) / 10,
          ...(waited ? { waitPct: Math.round(((c.waitNs - prev.waitNs) / 1e9 / wallS) * 1000) / 10 } : {}),
          rssMiB: Math.round((c.rss / 2 ** 20) * 10) / 10,
          pids: c.pids,
          pid: c.pid,
        };
      }
      const m =
        machine && last.machine
          ? {
              cpuPct: Math.round(((machine.busyTicks - last.machine.busyTicks) / TICKS / wallS) * 1000) / 10,
              labPct: Math.max(0, Math.round(((machine.labTicks - last.machine.labTicks) / TICKS / wallS) * 1000) / 10),
              load1: machine.load1,
            }
          : null;
      onSample({ at: Date.now(), nodes, ...(m ? { machine: m } : {}) });
    }
    last = { now, current, machine };
  };
  tick();
  const timer = setInterval(tick, intervalMs);
  return {
    stop() {
      clearInterval(timer);
    },
  };
}

module.exports = startSampler;
