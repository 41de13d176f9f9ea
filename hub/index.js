#!/usr/bin/env node
'use strict';

const parseSettings = require('../common/settings');
const createHub = require('./server');

// Entry point: `node hub` with HOST and PORT in the environment. The service processes of a
// deployment reach it through SIGNAL_HUB=host:port (service/signal/hub-client.js).
const schema = {
  host: { name: 'HOST', type: 'string', default: '127.0.0.1' },
  port: { name: 'PORT', type: 'int', min: 0, max: 65535, default: 7070 },
};
let config;
try {
  config = parseSettings(schema, process.env);
} catch (err) {
  process.stderr.write(`hub: ${err.message}\n`);
  process.exit(1);
}
const { server } = createHub();
server.listen({ host: config.host, port: config.port }, () => {
  process.stderr.write(`hub: listening on ${config.host}:${server.address().port}\n`);
});
server.on('error', (err) => {
  process.stderr.write(`hub: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
  process.exit(1);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)));
