'use strict';

const fs = require('node:fs');
const { CHROMIUM } = require('./paths');
const { labError } = require('../common/errors');

// A script's Playwright engine without Debian's Chromium: refused with the command that
// installs it, at plan time by scenario and when the script is written for Artillery.
function assertChromiumForPlaywright() {
  if (fs.existsSync(CHROMIUM)) return;
  throw labError(
    'LAB_ERR_KIND_MISSING',
    "the script's Playwright engine",
    CHROMIUM,
    'chromium',
    'its browser; or LAB_CHROMIUM=/path/to/chromium',
  );
}

module.exports = { assertChromiumForPlaywright };
