'use strict';

const http = require('node:http');
const createApp = require('./app');
const createUpstream = require('./upstream');
const createMetrics = require('./metrics');

// Runs one serving process (the only one, or a cluster worker): listens, and on SIGTERM or
// SIGINT stops accepting, lets in-flight requests finish (at most shutdownTimeoutMs) and
// exits 0.
function startServer(config, identity) {
  const upstream = createUpstream({ timeoutMs: config.upstreamTimeoutMs });
  const metrics = createMetrics(config);
  const app = createApp({ config, identity, upstream, metrics });
  const server = http.createServer(app);
  // nginx keeps upstream connections open for reuse; closing them first would turn into
  // failed requests at nginx, so idle connections live longer than nginx's keepalive_timeout.
  server.keepAliveTimeout = 65000;
  server.headersTimeout = 66000;

  let stopping = false;
  function stop(signal) {
    if (stopping) return;
    stopping = true;
    const force = setTimeout(() => process.exit(0), config.shutdownTimeoutMs);
    force.unref();
    server.close(() => {
      upstream.close();
      metrics.close();
      process.exit(0);
    });
    server.closeIdleConnections();
    // Connections that finish their request are closed rather than kept alive.
    server.on('request', (req, res) => res.setHeader('Connection', 'close'));
    process.stderr.write(`service ${identity.instance}/${identity.worker}: ${signal}, draining\n`);
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  return new Promise((resolve, reject) => {
    server.once('error', reject);
    // Under cluster the primary owns the socket; every worker passes the same port.
    server.listen({ host: config.host, port: config.port, backlog: 4096 }, () => resolve(server));
  });
}

module.exports = startServer;
