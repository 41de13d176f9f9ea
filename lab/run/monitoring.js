'use strict';

const path = require('node:path');
const startMonitoring = require('../monitoring');
const { own } = require('../ownership/cleanups');

// Monitoring: first, so the replicas start with StatsD's address; stopped last.
async function monitor(run) {
  const { p, log } = run;
  const { values, ctx } = p;
  const monitoring = await startMonitoring({
    resultsDir: run.dir,
    graphiteDir: path.join(ctx.stateDir, 'graphite'),
    host: ctx.host,
    ports: p.ports,
    prefix: run.prefix,
    statsd: !values['no-statsd'] && process.env.LAB_STATSD !== 'off',
    graphite: values['no-graphite'] ? 'off' : (values.graphite ?? process.env.LAB_GRAPHITE ?? 'auto'),
  });
  own(() => monitoring.stop());
  for (const [name, src] of Object.entries(monitoring.sources)) {
    if (!src.ok) log(`monitoring: no ${name}: ${src.reason}`);
  }
  run.monitoring = monitoring;
}

module.exports = { monitor };
