'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { fork } = require('node:child_process');
const { helperEnv } = require('../ownership/adopt');
const { peakRate } = require('./schedule');

// Above 3,000 arrivals/s the schedule is shared among more threads, at most one per core. (On
// the 2-core machine of bench/README.md, /ping through nginx at 3,000/s: one thread spent 113
// µs a request with a send lag of 1.2 ms at p99, two threads 145 µs and 1.8 ms, beside the
// deployment on the same cores; kept alive 41 against 70 µs, 0.8 against 0.9 ms. At 4,000/s
// one thread's p99 lag grew to 4.2 ms, two threads' 2.3. The rule was 1,500/s when a request
// cost 0.5 ms of CPU.)
const PER_THREAD = 3000;

// (nodes: how many machines share the plan, each running its part: --load-nodes.)
function threadsFor(plan, cores, nodes = 1) {
  if (plan.workers) return plan.workers;
  if (plan.mode === 'closed') return Math.min(cores, Math.max(1, Math.ceil(plan.connections / nodes / 500)));
  return Math.min(cores, Math.max(1, Math.ceil(peakRate(plan.phases) / nodes / PER_THREAD)));
}

// Starts the lab's own generator (open or closed loop) as a child process and passes its
// records on as they come. plan: { mode: 'open'|'closed', target, path, phases, keepalive,
// timeoutMs, connections, requests, durationMs, workers }.
function startOwn(plan, { dir, onRecord = () => {}, cores = require('node:os').cpus().length }) {
  const full = { ...plan, workers: threadsFor(plan, cores) };
  return forkEngine('fast-process.js', full, { dir, onRecord });
}

// Runs one of the lab's engines (`script`, in this folder) as a child process with its plan
// in the run folder; its records come back over IPC. Returns the seam's { pid, workers,
// done, stop }.
function forkEngine(script, full, { dir, onRecord = () => {} }) {
  const planFile = path.join(dir, 'generator-plan.json');
  // --dotenv's values (the model's env) go to the engine's environment, under its own (as
  // dotenv loads them), never into the run folder: they may be secrets.
  const env = full.model?.env ?? null;
  const written = env ? { ...full, model: { ...full.model, env: undefined } } : full;
  fs.writeFileSync(planFile, `${JSON.stringify(written, null, 2)}\n`);
  const log = fs.openSync(path.join(dir, 'generator.log'), 'w');
  const child = fork(path.join(__dirname, script), [planFile], {
    stdio: ['ignore', log, log, 'ipc'],
    env: { ...(env || {}), ...helperEnv() },
  });
  fs.closeSync(log);
  const records = [];
  child.on('message', (r) => {
    records.push(r);
    onRecord(r);
  });
  const oomBefore = oomKills();
  let killed = false;
  const done = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      const end = records.find((r) => r.type === 'done');
      const fatal = records.find((r) => r.type === 'fatal');
      const status = fatal
        ? `failed (${fatal.message})`
        : end && !end.interrupted
          ? 'completed'
          : end
            ? 'interrupted'
            : `failed (${died(code, signal, { killed, oomBefore, log: path.join(dir, 'generator.log') })})`;
      resolve({ records, status });
    });
  });
  let killer = null;
  const stop = () => {
    if (child.exitCode !== null || child.signalCode !== null) return done;
    child.kill('SIGTERM');
    killer =
      killer ||
      setTimeout(() => {
        killed = true;
        child.kill('SIGKILL');
      }, 4000);
    killer.unref();
    return done;
  };
  return { pid: child.pid, workers: full.workers || 1, done, stop };
}

// The kernel's count of processes its OOM killer killed (/proc/vmstat), or null.
function oomKills() {
  try {
    const m = /^oom_kill (\d+)$/m.exec(fs.readFileSync('/proc/vmstat', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

// Why the generator died, in words: a generator killed for memory is named as such (seen:
// arrivalRate 1e9 read only "failed (SIGKILL)").
function died(code, signal, { killed, oomBefore, log }) {
  const after = oomKills();
  if (signal === 'SIGKILL' && !killed && oomBefore !== null && after > oomBefore) {
    return "SIGKILL: the kernel's out-of-memory killer killed it, the machine's memory ran out";
  }
  let tail = '';
  try {
    const fd = fs.openSync(log, 'r');
    const size = fs.fstatSync(fd).size;
    const buf = Buffer.alloc(Math.min(size, 8192));
    fs.readSync(fd, buf, 0, buf.length, size - buf.length);
    fs.closeSync(fd);
    tail = buf.toString('utf8');
  } catch {
    // no log
  }
  if (/heap out of memory|Allocation failed/.test(tail))
    return `${signal || code}: it ran out of memory (its JavaScript heap)`;
  // An uncaught error: its own line, so the terminal says why (a processor that would not
  // load read only "failed (1)", its cause in generator.log).
  const thrown = [...tail.matchAll(/^\w*Error(?: \[\w+\])?: .+$/gm)].at(-1);
  if (thrown) return `${signal || code}: ${thrown[0].slice(0, 300)} (generator.log has the rest)`;
  return signal || code;
}

module.exports = { startOwn, forkEngine, threadsFor, PER_THREAD, died };
