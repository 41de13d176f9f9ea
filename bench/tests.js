#!/usr/bin/env node
'use strict';

// How long `npm test` takes, by set (issue 71): lint, the unit tests and the end-to-end ones,
// each run as `npm test` runs it (scripts/test.sh with LAB_TEST_SETS), its wall time and its
// counts and every file's time (jest's own, slowest first: which file costs what), on a quiet
// machine and, with --busy, beside four CPU hogs (`npm run test:busy`'s).
// The goal: the whole `npm test` within 12 minutes on a 2-core machine, its installs made. The
// speed is judged here, with the machine written beside it, never by a timed assertion.
// --cpu: each end-to-end file's CPU as well (LAB_TEST_CPU=1, test/cpu-environment.js: every
// process the file started, in a control group of its own; root and cgroup v1's cpuacct).
// Writes bench/results/tests.json (tests-busy.json with --busy, tests-cpu.json with --cpu: a
// run whose files are moved into control groups is not the quiet run's record of times).
//   node bench/tests.js [--busy] [--cpu] [--sets lint,unit,e2e]
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bench, flag } = require('./kit');

const ROOT = path.join(__dirname, '..');
const SETS = ['lint', 'unit', 'e2e'];

// One set as scripts/test.sh runs it: -> { set, seconds, passed, failed, skipped }.
function runSet(set, log, cpu = false) {
  return new Promise((resolve, reject) => {
    const t0 = Date.now();
    if (cpu) fs.rmSync(path.join(ROOT, 'test-output', 'cpu'), { recursive: true, force: true });
    const child = spawn('bash', ['scripts/test.sh'], {
      cwd: ROOT,
      env: { ...process.env, LAB_TEST_SETS: set, ...(cpu ? { LAB_TEST_CPU: '1' } : {}) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', () => {
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      const line = fs.readFileSync(path.join(ROOT, 'test-output', 'summary.txt'), 'utf8').trim();
      const m = /^(\d+) passed, (\d+) failed, (\d+) skipped$/.exec(line);
      if (!m) return reject(new Error(`${set}: no summary line (${line})`));
      const [passed, failed, skipped] = m.slice(1).map(Number);
      log(`${set}: ${seconds} s, ${line}`);
      // Each file's time, as jest measured it (test/summary-reporter.js); lint has none.
      const files = path.join(ROOT, 'test-output', `files-${set}.json`);
      const byFile = set !== 'lint' && fs.existsSync(files) ? JSON.parse(fs.readFileSync(files, 'utf8')) : undefined;
      return resolve({ set, seconds, passed, failed, skipped, ...(byFile ? { files: byFile } : {}) });
    });
  });
}

// Four CPU hogs, as scripts/test-busy.sh starts them; stopped by their pids.
function startHogs() {
  const hogs = [1, 2, 3, 4].map(() => spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  return () => hogs.forEach((h) => h.kill('SIGKILL'));
}

let stop = null;
module.exports = bench(
  {
    name: ['tests', ...['busy', 'cpu'].filter((f) => process.argv.includes(`--${f}`))].join('-'),
    usage: 'node bench/tests.js [--busy] [--cpu] [--sets lint,unit,e2e]',
    flags: {
      busy: flag.bool(),
      cpu: flag.bool(),
      sets: { ...flag.string(), default: SETS.join(',') },
    },
    async run(values, { log }) {
      const sets = values.sets.split(',').map((s) => s.trim());
      for (const s of sets) if (!SETS.includes(s)) throw new Error(`--sets ${values.sets}: ${s} is not one of ${SETS}`);
      stop = values.busy ? startHogs() : null;
      const rows = [];
      try {
        for (const set of sets) rows.push(await runSet(set, log, Boolean(values.cpu)));
      } finally {
        stop?.();
      }
      const seconds = Math.round(rows.reduce((a, r) => a + r.seconds, 0) * 10) / 10;
      // With --cpu: the CPU the counted files spent, and the least wall time it needs on this
      // machine's cores, whatever the order or the number of workers.
      const counted = rows.flatMap((r) => r.files ?? []).filter((f) => typeof f.cpuS === 'number');
      const cpuS = counted.length ? Math.round(counted.reduce((a, f) => a + f.cpuS, 0)) : null;
      const cpu = cpuS === null ? {} : { cpuS, cpuFloorS: Math.round(cpuS / os.cpus().length) };
      return {
        goal: 'the whole npm test within 12 minutes (720 s) on a quiet 2-core machine, its installs made; green beside four CPU hogs',
        busy: Boolean(values.busy),
        cpu: Boolean(values.cpu),
        sets: rows,
        seconds,
        ...cpu,
        headline: {
          seconds,
          ...cpu,
          sets: Object.fromEntries(rows.map((r) => [r.set, r.seconds])),
          slowest: rows
            .flatMap((r) => r.files ?? [])
            .sort((a, b) => b.seconds - a.seconds)
            .slice(0, 10)
            .map((f) => `${f.file} ${f.seconds} s`),
        },
      };
    },
    cleanup: async () => stop?.(),
  },
  module,
);
