'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Ends every jest run with the plain line CI reads, `N passed, N failed, N skipped`, and keeps
// it in test-output/summary.txt so .ci/run can print it last whatever npm prints after; each
// file's time, and when it started, in test-output/files-<set>.json. A skip is counted, never
// silent: a test skipped for what the machine lacks says why in its name (test/requires.js).
class SummaryReporter {
  // (jest gives a reporter its options: `dir` only for the reporter's own test.)
  constructor(_globalConfig, options = {}) {
    this.dir = options.dir || path.join(__dirname, '..', 'test-output');
  }

  onRunComplete(_contexts, results) {
    // A suite that could not run counts once, unless its tests were already counted.
    const broken = results.testResults.filter((r) => r.testExecError && r.numFailingTests === 0).length;
    const failed = results.numFailedTests + broken;
    const skipped = results.numPendingTests + (results.numTodoTests || 0);
    const line = `${results.numPassedTests} passed, ${failed} failed, ${skipped} skipped`;
    const { dir } = this;
    fs.mkdirSync(dir, { recursive: true });
    // (The container and cluster suites are e2e runs of their own, named apart: each keeps its
    // own line.)
    const suite = process.env.LAB_TEST_SUITE;
    fs.writeFileSync(path.join(dir, suite ? `summary-${suite}.txt` : 'summary.txt'), `${line}\n`);
    // Each file's time and counts, and its tests of a second or more (bench/tests.js keeps them
    // in bench/results/tests.json): which file costs what, slowest first.
    const files = results.testResults
      .map((r) => ({
        file: path.relative(path.join(__dirname, '..'), r.testFilePath),
        seconds: Math.round((r.perfStats.end - r.perfStats.start) / 100) / 10,
        // (When it started, in seconds after the run did: which files ran side by side, and
        // which ran last, as the run's CPU or a failure beside them is read.)
        started: Number.isFinite(results.startTime)
          ? Math.round((r.perfStats.start - results.startTime) / 100) / 10
          : undefined,
        passed: r.numPassingTests,
        failed: r.numFailingTests + (r.testExecError && r.numFailingTests === 0 ? 1 : 0),
        skipped: r.numPendingTests + (r.numTodoTests || 0),
        // (Its tests of a second or more, slowest first: which test of a long file costs what.)
        tests: (r.testResults || [])
          .filter((t) => t.duration >= 1000)
          .sort((a, b) => b.duration - a.duration)
          .map((t) => ({ name: t.fullName, seconds: Math.round(t.duration / 100) / 10 })),
      }))
      .sort((a, b) => b.seconds - a.seconds);
    // With LAB_TEST_CPU=1, each file's CPU too (test/cpu-environment.js: every process it
    // started counted), in CPU seconds.
    const cpuDir = path.join(dir, 'cpu');
    if (process.env.LAB_TEST_CPU && fs.existsSync(cpuDir)) {
      const cpu = new Map(
        fs
          .readdirSync(cpuDir)
          .map((f) => JSON.parse(fs.readFileSync(path.join(cpuDir, f), 'utf8')))
          .map((r) => [r.file, r.cpuS]),
      );
      for (const f of files) if (cpu.has(f.file)) f.cpuS = cpu.get(f.file);
    }
    const set = suite || process.env.LAB_TESTS || 'all';
    fs.writeFileSync(path.join(dir, `files-${set}.json`), `${JSON.stringify(files, null, 1)}\n`);
    // Each failing test's name and the first lines of why (test-output/failures-<set>.txt):
    // .ci/run prints them all just before its last line, where a cut log still shows them.
    const failures = [];
    for (const r of results.testResults) {
      const file = path.relative(path.join(__dirname, '..'), r.testFilePath);
      if (r.testExecError && r.numFailingTests === 0) failures.push(`${file}: ${firstLines(r.testExecError.message)}`);
      for (const t of r.testResults || []) {
        if (t.status === 'failed')
          failures.push(`${file} › ${t.fullName}: ${firstLines((t.failureMessages || [])[0])}`);
      }
    }
    const failuresFile = path.join(dir, `failures-${set}.txt`);
    if (failures.length) fs.writeFileSync(failuresFile, `${failures.join('\n')}\n`);
    else fs.rmSync(failuresFile, { force: true });
    process.stdout.write(`${line}\n`);
  }
}

// The first lines of a failure's message, its colours taken out, on one line (a stack is not
// needed to know which assertion failed: the test's own output has it).
function firstLines(message = '') {
  return String(message)
    .replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('at '))
    .slice(0, 4)
    .join(' | ')
    .slice(0, 400);
}

module.exports = SummaryReporter;
