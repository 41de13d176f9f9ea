'use strict';

const fs = require('node:fs');

// Headless Chromium, to read the pages the lab writes as a person meets them: Debian's
// `chromium`, driven by playwright-core (never a browser a tool downloads). The tests
// (test/browser.js) and the benches (bench/charts.js) both start it from here.
const { CHROMIUM } = require('../paths');
const available = () => fs.existsSync(CHROMIUM);
const SKIP_REASON = `no Chromium at ${CHROMIUM} (as root the test set-up installs it: apt-get install -y chromium)`;

async function launch() {
  // (Loaded when asked: playwright-core is for the tests and the benches, not for runs.)
  const { chromium } = require('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

module.exports = { CHROMIUM, available, SKIP_REASON, launch };
