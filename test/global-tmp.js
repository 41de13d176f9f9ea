'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { VAR, newToken, rootPrefix, suiteProcesses, stopAll, describe, OUT } = require('./leftovers');

// One temporary root per test run. Every test (and every lab command it runs) makes its
// scratch directories under os.tmpdir(), so pointing TMPDIR here before jest starts its
// workers gathers them all: deployments' state dirs with their Graphite data are ~170 MB
// each, and a suite that left them behind filled /tmp run after run. The run's token
// (./leftovers.js, kept from scripts/test.sh when it set one) names the root and marks
// every process the suite starts. The teardown stops every such process still running, then
// removes this root only (the one thing it created); LAB_KEEP_TEST_TMP=1 keeps it for a
// post-mortem.
async function setup() {
  if (!process.env[VAR]) process.env[VAR] = newToken();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), rootPrefix(process.env[VAR])));
  process.env.LAB_TEST_TMP_ROOT = root;
  process.env.TMPDIR = root;
}

async function teardown() {
  const root = process.env.LAB_TEST_TMP_ROOT;
  if (!root) return;
  // First what still runs (a deployment a failed test did not take down writes into the
  // root while it is removed: ENOTEMPTY, and the deployment was left up with its folder gone).
  const left = suiteProcesses(process.env[VAR]);
  if (left.length) {
    const text = `teardown: stopping ${left.length} process(es) the tests left running:\n${describe(left)}\n`;
    process.stdout.write(`\n${text}`);
    // Said again by the check `npm test` ends with, which fails on it (./leftovers.js).
    fs.mkdirSync(OUT, { recursive: true });
    // (A container or cluster suite notes its own: .ci/run counts it as that suite's failure.)
    const suite = process.env.LAB_TEST_SUITE;
    fs.appendFileSync(path.join(OUT, suite ? `leftovers-${suite}.txt` : 'leftovers.txt'), text);
    await stopAll(left);
  }
  if (process.env.LAB_KEEP_TEST_TMP === '1') {
    process.stdout.write(`\ntest scratch kept in ${root}\n`);
    return;
  }
  for (let attempt = 0; ; attempt++) {
    try {
      fs.rmSync(root, { recursive: true, force: true });
      return;
    } catch (err) {
      if (attempt >= 5) {
        process.stdout.write(`\nteardown: could not remove ${root}: ${err.code || err.message}\n`);
        return;
      }
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

module.exports = { setup, teardown };
