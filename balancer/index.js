#!/usr/bin/env node
'use strict';

const { loadConfig, readUpstreams } = require('./config');
const createBalancer = require('./server');

// Entry point: `node balancer` with HOST, PORT, UPSTREAMS (host:port,...) in the environment.
let config;
try {
  config = loadConfig();
} catch (err) {
  process.stderr.write(`balancer: ${err.message}\n`);
  process.exit(1);
}
const fs = require('node:fs');

const tls = config.tlsCert
  ? { cert: fs.readFileSync(config.tlsCert), key: fs.readFileSync(config.tlsKey), http2: config.http2 }
  : null;
const { server, stop, setUpstreams } = createBalancer({ ...config, tls });
// SIGHUP: the replicas again, from UPSTREAMS_FILE (a bad file keeps the ones it has, said).
process.on('SIGHUP', () => {
  if (!config.upstreamsFile) return process.stderr.write('balancer: SIGHUP without UPSTREAMS_FILE: nothing to read\n');
  try {
    const list = readUpstreams(fs.readFileSync(config.upstreamsFile, 'utf8'));
    setUpstreams(list);
    process.stderr.write(`balancer: now round-robin over ${list.join(', ')}\n`);
  } catch (err) {
    process.stderr.write(`balancer: ${config.upstreamsFile}: ${err.message}; the replicas stay as they were\n`);
  }
  return null;
});
server.listen(config.port, config.host, () => {
  process.stderr.write(
    `balancer: listening on ${config.host}:${server.address().port}, round-robin over ${config.upstreams.join(', ')}\n`,
  );
});
server.on('error', (err) => {
  process.stderr.write(`balancer: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
  process.exit(1);
});
// pm2 stops its apps with SIGINT: stop accepting, let the answers in flight finish.
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, () => {
    stop(() => process.exit(0));
    setTimeout(() => process.exit(0), 3000).unref();
  });
}
