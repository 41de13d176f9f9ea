#!/usr/bin/env node
'use strict';

const parseSettings = require('../common/settings');
const createHub = require('./server');

// Entry point: `node hub` with HOST, PORT and HUB_TOKEN in the environment. The service
// processes of a deployment reach it through SIGNAL_HUB=host:port and SIGNAL_HUB_TOKEN
// (service/signal/hub-client.js). Locally it listens on loopback whatever the deployment's
// --host (it is for the deployment's own processes); in containers, on the project's
// private network, never published.
const schema = {
  host: { name: 'HOST', type: 'string', default: '127.0.0.1' },
  port: { name: 'PORT', type: 'int', min: 0, max: 65535, default: 7070 },
  token: { name: 'HUB_TOKEN', type: 'string', default: '' },
};
let config;
try {
  config = parseSettings(schema, process.env);
} catch (err) {
  process.stderr.write(`hub: ${err.message}\n`);
  process.exit(1);
}
const { server, stop } = createHub({ token: config.token });
server.listen({ host: config.host, port: config.port }, () => {
  process.stderr.write(
    `hub: listening on ${config.host}:${server.address().port}${config.token ? '' : ' (no token: for a private network only)'}\n`,
  );
});
server.on('error', (err) => {
  process.stderr.write(`hub: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
  process.exit(1);
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => stop().then(() => process.exit(0)));
