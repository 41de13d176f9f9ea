'use strict';

const http = require('node:http');
const createApp = require('./app');
const createUpstream = require('./upstream');
const createMetrics = require('./metrics');
const attachSignaling = require('./signal/server');
const localRegistry = require('./signal/local-registry');
const hubClient = require('./signal/hub-client');
const gcStats = require('./gc-stats');

// Runs one serving process (the only one, or a cluster worker): listens, and on SIGTERM or
// SIGINT stops accepting, lets in-flight requests finish (at most shutdownTimeoutMs) and
// exits 0.
function startServer(config, identity) {
  const upstream = createUpstream({ timeoutMs: config.upstreamTimeoutMs });
  const metrics = createMetrics(config);
  // Signaling rooms: shared through the hub when there is one (several workers or replicas),
  // else this process's own.
  const rooms = config.signalHub ? hubClient(config.signalHub, { token: config.signalHubToken }) : localRegistry();
  let signaling = null;
  const signalStats = () => (signaling ? signaling.stats() : { connections: 0, messagesIn: 0, messagesOut: 0 });
  const gc = gcStats();
  const app = createApp({ config, identity, upstream, metrics, rooms, signalStats, gcStats: gc.read });
  const server = http.createServer(app);
  signaling = attachSignaling(server, { registry: rooms, metrics, identity });
  // Without the hub this process goes on serving HTTP and its own participants; signaling
  // across processes answers UNAVAILABLE until the hub is back (./signal/hub-client.js).
  if (rooms.onLost) {
    const who = `service ${identity.instance}/${identity.worker}`;
    rooms.onLost((err) => process.stderr.write(`${who}: lost the hub (${err.message})\n`));
    rooms.onBack(() => process.stderr.write(`${who}: the hub is back; rooms registered again\n`));
  }
  // nginx keeps upstream connections open for reuse; closing them first would turn into
  // failed requests at nginx, so idle connections live longer than nginx's keepalive_timeout.
  server.keepAliveTimeout = 65000;
  server.headersTimeout = 66000;

  let stopping = false;
  function stop(signal) {
    if (stopping) return;
    stopping = true;
    if (config.shutdown === 'abrupt') {
      process.stderr.write(
        `service ${identity.instance}/${identity.worker}: ${signal}, exiting at once (SHUTDOWN=abrupt)\n`,
      );
      process.exit(0);
    }
    const force = setTimeout(() => process.exit(0), config.shutdownTimeoutMs);
    force.unref();
    signaling.close();
    server.close(() => {
      upstream.close();
      metrics.close();
      gc.stop();
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
