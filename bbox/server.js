'use strict';

const http = require('node:http');
const { asyncHandler, syncHandler } = require('./services');

// Starts both black boxes from a loaded config; resolves to { ports, close }.
async function startBlackBoxes(config) {
  const servers = {};
  for (const [name, svc] of Object.entries(config.services)) {
    const handler = svc.kind === 'sync' ? syncHandler({ ...svc, backlog: config.backlog }) : asyncHandler(svc);
    const server = http.createServer(handler);
    server.keepAliveTimeout = 65000;
    server.headersTimeout = 66000;
    // Thousands of connections can arrive at once; the kernel caps this at somaxconn.
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: config.host, port: svc.port, backlog: 4096 }, resolve);
    });
    servers[name] = server;
  }
  const ports = Object.fromEntries(Object.entries(servers).map(([n, s]) => [n, s.address().port]));
  return {
    ports,
    close: () =>
      Promise.all(
        Object.values(servers).map(
          (s) =>
            new Promise((resolve) => {
              s.close(resolve);
              s.closeAllConnections();
            }),
        ),
      ),
  };
}

module.exports = startBlackBoxes;
