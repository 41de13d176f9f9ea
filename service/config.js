'use strict';

const os = require('node:os');
const parseSettings = require('../common/settings');

// Everything the service reads from its environment, validated once at start.
const schema = {
  host: { name: 'HOST', type: 'string', default: '127.0.0.1' },
  port: { name: 'PORT', type: 'int', min: 0, max: 65535, default: 3000 },
  workers: { name: 'WORKERS', type: 'int', min: 1, max: 64, default: 1 },
  instance: { name: 'INSTANCE', type: 'string', default: () => os.hostname() },
  heavyMs: { name: 'HEAVY_MS', type: 'int', min: 1, max: 60000, default: 5000 },
  // How many /heavy or /work requests may wait for the process's CPU (./cpu-gate.js); the
  // next gets 503 with Retry-After.
  cpuQueueMax: { name: 'CPU_QUEUE_MAX', type: 'int', min: 0, max: 100000, default: 256 },
  bbox1Url: { name: 'BBOX1_URL', type: 'url', default: 'http://127.0.0.1:9090' },
  bbox2Url: { name: 'BBOX2_URL', type: 'url', default: 'http://127.0.0.1:9091' },
  // Longer than the clients' 10 s: when the synchronous black box is overloaded the client
  // should see its own time-out, as in the course report, not an early 504 from us.
  upstreamTimeoutMs: { name: 'UPSTREAM_TIMEOUT_MS', type: 'int', min: 1, max: 600000, default: 30000 },
  shutdownTimeoutMs: { name: 'SHUTDOWN_TIMEOUT_MS', type: 'int', min: 0, max: 600000, default: 10000 },
  // What SIGTERM does: drain (stop accepting, answer what is in flight, then exit), or abrupt
  // (exit at once, as a service with no handler does: the lab's rollouts show what it drops).
  shutdown: { name: 'SHUTDOWN', type: 'enum', values: ['drain', 'abrupt'], default: 'drain' },
  // Where the signaling rooms are shared across workers and replicas (hub/, host:port);
  // empty: rooms are this process's own.
  signalHub: { name: 'SIGNAL_HUB', type: 'string', default: '' },
  // The deployment's token the hub asks for (HUB_TOKEN there); empty where the hub has none.
  signalHubToken: { name: 'SIGNAL_HUB_TOKEN', type: 'string', default: '' },
  // How long an edge (or any cache) may keep a /asset answer.
  assetMaxAgeS: { name: 'ASSET_MAX_AGE_S', type: 'int', min: 0, max: 86400, default: 60 },
  statsdHost: { name: 'STATSD_HOST', type: 'string', default: '' },
  statsdPort: { name: 'STATSD_PORT', type: 'int', min: 1, max: 65535, default: 8125 },
  statsdPrefix: { name: 'STATSD_PREFIX', type: 'string', default: 'service' },
};

function loadConfig(env = process.env) {
  return parseSettings(schema, env);
}

module.exports = { loadConfig, schema };
