'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Ends every jest run with the plain line CI reads, `N passed, N failed`, and keeps it in
// test-output/summary.txt so .ci/run can print it last whatever npm prints after.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed`;
    const dir = path.join(__dirname, '..', 'test-output');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'summary.txt'), `${line}\n`);
    process.stdout.write(`${line}\n`);
  }
}

module.exports = SummaryReporter;
