'use strict';

const cluster = require('node:cluster');
const path = require('node:path');

// The node:cluster primary: forks one worker per slot on the shared port, replaces a worker
// that dies, and on SIGTERM/SIGINT asks every worker to drain and exits 0 once they have.
// A replacement keeps its slot number, so X-Worker names a stable position, not a pid.
function runPrimary(config, { log = (m) => process.stderr.write(`${m}\n`) } = {}) {
  let stopping = false;
  const slots = new Map(); // worker.id -> slot

  function fork(slot) {
    const worker = cluster.fork({ LAB_WORKER_SLOT: String(slot) });
    slots.set(worker.id, slot);
    return worker;
  }

  cluster.on('exit', (worker, code, signal) => {
    const slot = slots.get(worker.id);
    slots.delete(worker.id);
    if (stopping) {
      if (slots.size === 0) process.exit(0);
      return;
    }
    log(
      `service ${config.instance}: worker ${slot} (pid ${worker.process.pid}) died (${signal || code}); replacing it`,
    );
    // A worker that dies at once (e.g. a port problem) would loop fast; a short pause
    // keeps a crash loop from eating the CPU that the measurement needs.
    setTimeout(() => fork(slot), 200).unref();
  });

  function stop(signal) {
    if (stopping) return;
    stopping = true;
    log(`service ${config.instance}: ${signal}, draining ${slots.size} workers`);
    for (const worker of Object.values(cluster.workers)) worker.process.kill('SIGTERM');
    if (slots.size === 0) process.exit(0);
    // The workers bound their own wait; this is the last resort if one hangs.
    setTimeout(() => process.exit(0), config.shutdownTimeoutMs + 2000).unref();
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));

  // Explicit: under pm2 (or any wrapper) process.argv[1] is the wrapper, not this service.
  cluster.setupPrimary({ exec: path.join(__dirname, 'index.js') });
  for (let slot = 1; slot <= config.workers; slot++) fork(slot);
}

module.exports = runPrimary;
