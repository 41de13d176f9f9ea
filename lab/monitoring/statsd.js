'use strict';

const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { sleep, stopChild } = require('../ownership/procs');
const { helperEnv } = require('../ownership/adopt');
const { own } = require('../ownership/cleanups');

const STATSD_BIN = require.resolve('statsd/bin/statsd');
// What the daemon needs of Node that Node 23 took away (util.log).
const COMPAT = path.join(__dirname, 'statsd-compat.js');
const BACKEND = path.join(__dirname, 'statsd-backend.js');
const FLUSH_MS = 1000;

function tcpOpen(port, host, timeoutMs = 300) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    const done = (ok) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once('connect', () => done(true));
    s.once('error', () => done(false));
  });
}

// Starts the Etsy StatsD daemon with a 1 s flush: the lab backend always (every flush into
// `seriesFile`), Graphite's when a carbon answers at `graphite`. Resolves { pid, stop } or
// null with a reason when it could not start (the run goes on without it).
async function startStatsd({ dir, host, port, mgmtPort, seriesFile, graphite }) {
  fs.mkdirSync(dir, { recursive: true });
  const backends = [BACKEND];
  if (graphite) backends.push('./backends/graphite');
  const config = {
    address: host,
    port,
    mgmt_address: host,
    mgmt_port: mgmtPort,
    flushInterval: FLUSH_MS,
    // Percentiles per flush, computed by StatsD from every sample of every process.
    percentThreshold: [50, 95, 99],
    deleteIdleStats: true,
    backends,
    labBackend: { file: seriesFile },
    ...(graphite
      ? {
          graphiteHost: graphite.host,
          graphitePort: graphite.port,
          graphite: { legacyNamespace: false, globalPrefix: '' },
        }
      : {}),
  };
  const configFile = path.join(dir, 'statsd.config.js');
  fs.writeFileSync(configFile, JSON.stringify(config, null, 2));
  const log = fs.openSync(path.join(dir, 'statsd.log'), 'w');
  const child = spawn(process.execPath, ['--require', COMPAT, STATSD_BIN, configFile], {
    stdio: ['ignore', log, log],
    env: helperEnv(),
  });
  fs.closeSync(log);
  // Owned from its spawn, as the run's carbon-cache is (./carbon.js).
  const release = own(() => stopChild(child, 3000));
  const stop = async () => {
    await stopChild(child, 3000);
    release();
  };
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) break;
    if (await tcpOpen(mgmtPort, host)) return { pid: child.pid, stop, flushMs: FLUSH_MS };
    await sleep(100);
  }
  await stop();
  const tail = fs.readFileSync(path.join(dir, 'statsd.log'), 'utf8').trim().split('\n').slice(-2).join(' | ');
  return { error: `StatsD did not start: ${tail || 'no answer on its management port'}` };
}

module.exports = { startStatsd, tcpOpen, FLUSH_MS };
