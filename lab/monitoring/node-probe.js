'use strict';

const { cacheOffsets, cacheCounts } = require('./edge-cache');
const { mib } = require('../topology/caps');

// What the per-node table adds to the sampler's figures, measured over the run's own window:
// the caps as set, what each capped node's control group accounted (the CPU it really got,
// OOM kills at its memory cap), and each caching edge's requests and hit ratio.
// start() when the load starts; read() when it is over (the deployment still up).
function nodeProbe(runtime, state, stateDir) {
  const local = state?.runtime === 'local';
  const edges = (state?.graph?.nodes || []).filter((n) => n.kind === 'nginx-edge').map((n) => n.name);
  const limits = Object.fromEntries(
    Object.entries(state?.caps || {}).map(([n, c]) => [
      n,
      { cpuPct: c.cpuPct, memoryMiB: c.memoryBytes !== null ? mib(c.memoryBytes) : null },
    ]),
  );
  let t0 = null;
  let groups0 = {};
  let offsets = {};
  return {
    start() {
      t0 = Date.now();
      groups0 = local ? runtime.readCaps(state) : {};
      offsets = local ? cacheOffsets(stateDir, edges) : {};
    },
    read() {
      if (t0 === null) return { limits, kernel: {}, cache: {} };
      const seconds = (Date.now() - t0) / 1000;
      const groups = local ? runtime.readCaps(state) : {};
      const kernel = {};
      for (const [name, g] of Object.entries(groups)) {
        const g0 = groups0[name] || {};
        kernel[name] = {
          cpuPct:
            g.cpuUsageUs != null && g0.cpuUsageUs != null && seconds > 0
              ? ((g.cpuUsageUs - g0.cpuUsageUs) / 1e6 / seconds) * 100
              : null,
          oomKills: g.oomKills != null ? g.oomKills - (g0.oomKills || 0) : null,
        };
      }
      return { limits, kernel, cache: local ? cacheCounts(stateDir, edges, offsets) : {} };
    },
  };
}

module.exports = nodeProbe;
