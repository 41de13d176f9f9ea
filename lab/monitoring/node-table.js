'use strict';

// A per-node table like `docker stats`, from the sampler's per-second samples: CPU (% of one
// core, as docker shows it) mean and max, memory max and, when the node has one, its limit and
// share, processes, and network bytes. Pure: rows from samples.
//   limits: { [node]: { memoryMiB, cpuPct } } for the capped nodes (lab/topology/caps.js).
//   kernel: { [node]: { cpuPct, oomKills, periods, throttledPeriods, throttledUs,
//           memoryPeakBytes } } what the node's control group accounted over the run
//           (lab/runtime/cgroups.js): the CPU it really got, the CFS periods it was throttled
//           in, its own memory at its peak, and processes the OOM killer killed at its cap.
//   cache:  { [edge]: { requests, hitRatio } } for the caching edges (each edge kind counts its own, lab/kinds/).
//   restarts: { [node]: { restarts, exitCodes } } for the nodes a supervisor restarts (pm2,
//           locally): how often it brought each back over the run; null where not counted.
// Network bytes are per network namespace on Linux: local processes share the host's, so they
// cannot be told apart per node and are left null, with the reason.
const NET_NOTE = 'network bytes: not measured per node (local processes share the host network namespace)';

const round1 = (v) => Math.round(v * 10) / 10;

function nodeTable(samples, limits = {}, { kernel = {}, cache = {}, restarts = {} } = {}) {
  const by = new Map();
  for (const s of samples) {
    for (const [name, n] of Object.entries(s.nodes || {})) {
      // Top-level nodes only: a replica's tree already holds its cluster workers.
      if (name.includes('.')) continue;
      if (!by.has(name)) by.set(name, { cpu: [], rss: [], pids: [], wait: [], exits: 0 });
      const b = by.get(name);
      b.exits = Math.max(b.exits, n.childExits || 0);
      b.cpu.push(n.cpuPct);
      if (Number.isFinite(n.waitPct)) b.wait.push(n.waitPct / Math.max(1, n.pids || 1));
      b.rss.push(n.rssMiB);
      b.pids.push(n.pids || 0);
    }
  }
  const rows = [...by].map(([name, b]) => {
    const memMax = Math.max(...b.rss);
    const limit = limits[name]?.memoryMiB ?? null;
    const k = kernel[name] || {};
    // The group's own peak when the kernel gives it: exact, where RSS summed over processes
    // counts their shared pages once per process.
    const groupMiB = k.memoryPeakBytes != null ? round1(k.memoryPeakBytes / 2 ** 20) : null;
    const memForLimit = groupMiB ?? memMax;
    return {
      node: name,
      cpuPctMean: round1(b.cpu.reduce((a, v) => a + v, 0) / b.cpu.length),
      cpuPctMax: round1(Math.max(...b.cpu)),
      // The share of the time each of its processes waited, runnable, for a core (its mean
      // over the run, % of wall time): how much a busy machine held it back.
      waitPctMean: b.wait.length ? round1(b.wait.reduce((a, v) => a + v, 0) / b.wait.length) : null,
      memMiBMax: round1(memMax),
      memLimitMiB: limit,
      memPctOfLimit: limit ? round1((memForLimit / limit) * 100) : null,
      memPctOfLimitFrom: limit ? (groupMiB !== null ? 'group' : 'rss') : null,
      groupMemMiBMax: groupMiB,
      pidsMax: Math.max(...b.pids),
      netInBytes: null,
      netOutBytes: null,
      cpuCapPct: limits[name]?.cpuPct ?? null,
      cgroupCpuPct: kernel[name]?.cpuPct != null ? round1(kernel[name].cpuPct) : null,
      oomKills: kernel[name]?.oomKills ?? null,
      periodMs: k.periodUs ? k.periodUs / 1000 : null,
      throttledPct: k.periods > 0 ? round1((k.throttledPeriods / k.periods) * 100) : k.periods === 0 ? 0 : null,
      throttledMs: k.throttledUs != null ? Math.round(k.throttledUs / 1000) : null,
      requests: cache[name]?.requests ?? null,
      hitRatio: cache[name]?.hitRatio ?? null,
      restarts: restarts[name]?.restarts ?? null,
      // Its own children (a cluster primary's workers) that ended under the run while it stayed:
      // workers crashed and forked again, which its supervisor never sees.
      workerExits: b.exits,
      ...(restarts[name]?.restarts ? { exitCodes: restarts[name].exitCodes } : {}),
      ...(restarts[name]?.kills ? { kills: restarts[name].kills } : {}),
    };
  });
  return { rows, note: NET_NOTE };
}

module.exports = { nodeTable, NET_NOTE };
