'use strict';

const parseSettings = require('../common/settings');

// The lab's own balancer reads its environment once, at start.
const schema = {
  host: { name: 'HOST', type: 'string', default: '127.0.0.1' },
  port: { name: 'PORT', type: 'int', min: 0, max: 65535, default: 8080 },
  // Comma-separated host:port of the replicas.
  upstreams: {
    name: 'UPSTREAMS',
    type: 'custom',
    expected: 'a comma-separated list of host:port',
    parse: (raw) => {
      const list = raw.split(',').map((u) => u.trim());
      if (!list.length || list.some((u) => !/^[A-Za-z0-9.-]+:\d{1,5}$/.test(u))) throw new Error('bad list');
      return Object.freeze(list);
    },
    default: Object.freeze([]),
  },
  // Idle connections kept to each replica, as nginx's `keepalive 64`.
  keepalive: { name: 'KEEPALIVE', type: 'int', min: 0, max: 10000, default: 64 },
  timeoutMs: { name: 'UPSTREAM_TIMEOUT_MS', type: 'int', min: 1, max: 600000, default: 120000 },
  // > 0: UPSTREAMS names are looked up again this often, every address of a name being one
  // replica (swarm's tasks.NAME, whose tasks come and go). 0: addresses are used as given.
  resolveMs: { name: 'RESOLVE_MS', type: 'int', min: 0, max: 600000, default: 0 },
};

function loadConfig(env = process.env) {
  const config = parseSettings(schema, env);
  if (!config.upstreams.length) throw new Error('UPSTREAMS is empty: name at least one replica as host:port');
  return config;
}

module.exports = { loadConfig, schema };
