#!/usr/bin/env node
'use strict';

const cluster = require('node:cluster');
const { loadConfig } = require('./config');
const startServer = require('./server');
const runPrimary = require('./cluster');

// Entry point: `node service`. WORKERS=1 serves in this very process; WORKERS=N makes this
// process a node:cluster primary with N workers on one port.
function main() {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`service: ${err.message}\n`);
    process.exit(1);
  }

  if (cluster.isPrimary && config.workers > 1) {
    runPrimary(config);
    process.stderr.write(`service ${config.instance}: ${config.workers} workers on ${config.host}:${config.port}\n`);
    return;
  }

  const worker = cluster.isPrimary ? 1 : Number(process.env.LAB_WORKER_SLOT);
  startServer(config, { instance: config.instance, worker }).then(
    (server) => {
      const { port } = server.address();
      if (cluster.isPrimary) process.stderr.write(`service ${config.instance}: listening on ${config.host}:${port}\n`);
    },
    (err) => {
      process.stderr.write(`service: cannot listen on ${config.host}:${config.port}: ${err.message}\n`);
      process.exit(1);
    },
  );
}

main();
