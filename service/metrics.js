'use strict';

const StatsD = require('statsd-client');

// StatsD over UDP: sends are buffered and fire-and-forget (statsd-client swallows socket
// errors), so with nothing listening a request is neither slowed nor failed. With no
// STATSD_HOST the service sends nothing at all.
function createMetrics({ statsdHost, statsdPort, statsdPrefix }) {
  if (!statsdHost) return { timing() {}, increment() {}, gauge() {}, close() {} };
  const client = new StatsD({ host: statsdHost, port: statsdPort, prefix: statsdPrefix });
  return {
    timing: (name, ms) => client.timing(name, ms),
    increment: (name, n = 1) => client.increment(name, n),
    gauge: (name, value) => client.gauge(name, value),
    close: () => client.close(),
  };
}

module.exports = createMetrics;
