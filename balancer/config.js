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
  // A file of host:port lines read again on SIGHUP: the replicas when they come and go (the
  // lab's autoscaler and rollouts write it).
  upstreamsFile: { name: 'UPSTREAMS_FILE', type: 'string', default: '' },
  // Idle connections kept to each replica, as nginx's `keepalive 64`.
  keepalive: { name: 'KEEPALIVE', type: 'int', min: 0, max: 10000, default: 64 },
  timeoutMs: { name: 'UPSTREAM_TIMEOUT_MS', type: 'int', min: 1, max: 600000, default: 120000 },
  // > 0: UPSTREAMS names are looked up again this often, every address of a name being one
  // replica (swarm's tasks.NAME, whose tasks come and go). 0: addresses are used as given.
  resolveMs: { name: 'RESOLVE_MS', type: 'int', min: 0, max: 600000, default: 0 },
  // TLS for its clients (--tls): its certificate and key files; HTTP2=1 speaks HTTP/2 too.
  tlsCert: { name: 'TLS_CERT', type: 'string', default: '' },
  tlsKey: { name: 'TLS_KEY', type: 'string', default: '' },
  http2: { name: 'HTTP2', type: 'bool', default: false },
};

// The replicas a file names (one host:port a line), checked as UPSTREAMS is.
function readUpstreams(text) {
  const list = text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return schema.upstreams.parse(list.join(','));
}

function loadConfig(env = process.env) {
  const config = parseSettings(schema, env);
  if (!config.upstreams.length) throw new Error('UPSTREAMS is empty: name at least one replica as host:port');
  if (Boolean(config.tlsCert) !== Boolean(config.tlsKey)) throw new Error('TLS_CERT and TLS_KEY go together');
  if (config.http2 && !config.tlsCert) throw new Error('HTTP2 needs TLS_CERT and TLS_KEY (HTTP/2 over TLS)');
  return config;
}

module.exports = { loadConfig, readUpstreams, schema };
