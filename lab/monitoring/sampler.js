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
    return { cpuTicks: Number(f[11]) + Number(f[12]), rssBytes: Number(f[21]) * PAGE };
  } catch {
    return null;
  }
}

// Samples named roots ({ name: pid }) every intervalMs; onSample({ at, nodes: { name:
// { cpuPct, rssMiB, pids } } }). Returns { stop() }.
function startSampler(roots, { intervalMs = 1000, onSample }) {
  let last = null;
  const tick = () => {
    const now = performance.now();
    const pmap = parents();
    const current = {};
    let r = typeof roots === 'function' ? roots() : roots;
    if (typeof r === 'function') r = r();
    for (const [name, pid] of Object.entries(r || {})) {
      if (!pid) continue;
      let ticks = 0;
      let rss = 0;
      let live = 0;
      for (const p of tree(pid, pmap)) {
        const s = readStat(p);
        if (s) ((ticks += s.cpuTicks), (rss += s.rssBytes), live++);
      }
      current[name] = { ticks, rss, pids: live };
    }
    if (last) {
      const wallS = (now - last.now) / 1000;
      const nodes = {};
      for (const [name, c] of Object.entries(current)) {
        const prev = last.current[name];
        // A restarted process starts its counters again; skip one sample rather than
        // report a negative or inflated figure.
        if (!prev || c.ticks < prev.ticks || c.pids === 0) continue;
        nodes[name] = {
          cpuPct: Math.round(((c.ticks - prev.ticks) / TICKS / wallS) * 1000) / 10,
          rssMiB: Math.round((c.rss / 2 ** 20) * 10) / 10,
          pids: c.pids,
        };
      }
      onSample({ at: Date.now(), nodes });
    }
    last = { now, current };
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
