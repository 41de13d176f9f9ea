#!/usr/bin/env node
'use strict';

// How long CI takes (issue 87): `.ci/run` as CI runs it (CI=true: lint, the unit and end-to-end
// tests, then the container and cluster suites), its wall time, each suite's counts and every
// test file's time (jest's own, test/summary-reporter.js), slowest first. The goal: within 25
// minutes on this machine. Judged here, with the machine written beside it, never by a timed
// assertion. Run it from a fresh clone with nothing else running.
// Writes bench/results/ci.json.
//   node bench/ci.js
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { bench } = require('./kit');

const ROOT = path.join(__dirname, '..');
const OUT = path.join(ROOT, 'test-output');
const GOAL_S = 25 * 60;

const counts = (file) => {
  const m = /^(\d+) passed, (\d+) failed, (\d+) skipped/.exec(fs.readFileSync(file, 'utf8').trim());
  return m ? { passed: Number(m[1]), failed: Number(m[2]), skipped: Number(m[3]) } : null;
};

module.exports = bench(
  {
    name: 'ci',
    usage: 'node bench/ci.js',
    async run(_values, { log }) {
      const t0 = Date.now();
      const code = await new Promise((resolve, reject) => {
        const child = spawn('bash', ['.ci/run'], {
          cwd: ROOT,
          env: { ...process.env, CI: 'true' },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        child.on('error', reject);
        child.on('exit', (c) => resolve(c));
      });
      const seconds = Math.round((Date.now() - t0) / 100) / 10;
      const suites = fs
        .readdirSync(OUT)
        .filter((f) => /^summary-.+\.txt$/.test(f))
        .map((f) => ({ suite: f.replace(/^summary-|\.txt$/g, ''), ...counts(path.join(OUT, f)) }));
      const files = fs
        .readdirSync(OUT)
        .filter((f) => /^files-.+\.json$/.test(f))
        .flatMap((f) =>
          JSON.parse(fs.readFileSync(path.join(OUT, f), 'utf8')).map((x) => ({
            set: f.replace(/^files-|\.json$/g, ''),
            ...x,
          })),
        )
        .sort((a, b) => b.seconds - a.seconds);
      const total = counts(path.join(OUT, 'summary.txt'));
      // When each part ended, from the start of .ci/run (its set-ups, npm test, the container
      // and cluster suites: test-output/times.txt).
      const timesFile = path.join(OUT, 'times.txt');
      const ended = fs.existsSync(timesFile)
        ? Object.fromEntries(
            fs
              .readFileSync(timesFile, 'utf8')
              .trim()
              .split('\n')
              .map((l) => /^(.+) (\d+) s$/.exec(l))
              .filter(Boolean)
              .map((m) => [m[1], Number(m[2])]),
          )
        : {};
      log(`.ci/run: ${seconds} s, exit ${code}, ${JSON.stringify(total)}`);
      return {
        goal: `.ci/run within ${GOAL_S / 60} minutes (${GOAL_S} s) on this machine, nothing else running`,
        seconds,
        met: seconds <= GOAL_S,
        exit: code,
        total,
        ended,
        suites,
        files,
        headline: {
          seconds,
          met: seconds <= GOAL_S,
          exit: code,
          total,
          slowest: files.slice(0, 10).map((f) => `${f.file} ${f.seconds} s`),
        },
      };
    },
  },
  module,
);
