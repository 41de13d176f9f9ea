'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

// One temporary root per test run. Every test (and every lab command it runs) makes its
// scratch directories under os.tmpdir(), so pointing TMPDIR here before jest starts its
// workers gathers them all: deployments' state dirs with their Graphite data are ~170 MB
// each, and a suite that left them behind filled /tmp run after run. The teardown removes
// this root only (the one thing it created); LAB_KEEP_TEST_TMP=1 keeps it for a post-mortem.
async function setup() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-tests-'));
  process.env.LAB_TEST_TMP_ROOT = root;
  process.env.TMPDIR = root;
}

async function teardown() {
  const root = process.env.LAB_TEST_TMP_ROOT;
  if (!root) return;
  if (process.env.LAB_KEEP_TEST_TMP === '1') {
    process.stdout.write(`\ntest scratch kept in ${root}\n`);
    return;
  }
  fs.rmSync(root, { recursive: true, force: true });
}

module.exports = { setup, teardown };
