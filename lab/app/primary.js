#!/usr/bin/env node
'use strict';

// A user's service as node:cluster workers, as pm2's cluster mode runs an app: this primary
// forks WORKERS workers of the app's own entry, each with the same PORT, and node:cluster
// shares the port between them, so the app needs no change. A worker that dies is replaced
// (after 200 ms, so a crash loop does not eat the CPU being measured); SIGTERM/SIGINT stop
// every worker and exit once they are gone (at most LAB_STOP_MS later).
// Usage: node lab/app/primary.js <entry> [args...], with WORKERS, LAB_EXEC_ARGV (JSON) and
// PORT in the environment; run from the app's folder.
const cluster = require('node:cluster');

const [entry, ...args] = process.argv.slice(2);
const workers = Math.max(1, Number(process.env.WORKERS) || 1);
const stopMs = Number(process.env.LAB_STOP_MS) || 5000;
let execArgv = [];
try {
  execArgv = JSON.parse(process.env.LAB_EXEC_ARGV || '[]');
} catch {
  // none
}
cluster.setupPrimary({ exec: entry, args, execArgv });

let stopping = false;
const fork = () => cluster.fork({ LAB_WORKER: '1' });
cluster.on('exit', (worker, code, signal) => {
  if (stopping) {
    if (Object.keys(cluster.workers).length === 0) process.exit(0);
    return;
  }
  process.stderr.write(`lab app primary: worker ${worker.process.pid} exited (${signal || code}); replacing it\n`);
  setTimeout(fork, 200).unref();
});
for (let i = 0; i < workers; i++) fork();

function stop() {
  if (stopping) return;
  stopping = true;
  for (const w of Object.values(cluster.workers)) w.process.kill('SIGTERM');
  if (Object.keys(cluster.workers).length === 0) process.exit(0);
  setTimeout(() => {
    for (const w of Object.values(cluster.workers)) w.process.kill('SIGKILL');
    process.exit(0);
  }, stopMs).unref();
}
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
