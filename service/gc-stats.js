'use strict';

const { PerformanceObserver, constants } = require('node:perf_hooks');

// This process's garbage collections since it started, by kind, and the time they paused it:
// under a memory limit V8 collects more often to stay within it, which RSS alone does not
// show (lab/commands/capacity.js reads them through /stats).
const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

function gcStats() {
  const counts = { minor: 0, major: 0, incremental: 0, weakcb: 0 };
  let pauseMs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      const kind = KINDS[e.detail?.kind];
      if (kind) counts[kind] += 1;
      pauseMs += e.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    read: () => ({
      collections: counts.minor + counts.major + counts.incremental + counts.weakcb,
      ...counts,
      pauseMs: Math.round(pauseMs * 10) / 10,
    }),
    stop: () => observer.disconnect(),
  };
}

module.exports = gcStats;
