'use strict';

const fs = require('node:fs');

// A backend for the Etsy StatsD daemon: every flush (1 s in the lab) is appended to a
// JSON-lines file in the run's results directory, so a run keeps its series whether or
// not a Graphite is there. Configured by `labBackend: { file }` in the daemon's config.
// Timers are written as StatsD computed them at that flush, from every sample of every
// process that sent one: one set of percentiles per second, never an average of others.
function init(startupTime, config, events) {
  const file = config.labBackend && config.labBackend.file;
  if (!file) return false;
  events.on('flush', (ts, m) => {
    const own = (k) => !k.startsWith('statsd.') && !k.startsWith('packets_') && !k.startsWith('bad_lines');
    const counters = {};
    for (const [k, v] of Object.entries(m.counters)) if (own(k) && v) counters[k] = v;
    const gauges = {};
    for (const [k, v] of Object.entries(m.gauges)) if (own(k)) gauges[k] = v;
    const timers = {};
    for (const [k, v] of Object.entries(m.timer_data)) if (own(k) && v.count) timers[k] = v;
    if (!Object.keys(counters).length && !Object.keys(gauges).length && !Object.keys(timers).length) return;
    fs.appendFileSync(file, `${JSON.stringify({ at: ts * 1000, counters, gauges, timers })}\n`);
  });
  return true;
}

module.exports = { init };
