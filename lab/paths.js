'use strict';

const path = require('node:path');

// Where the lab's own files are, for the modules that start programs or write results.
const ROOT = path.join(__dirname, '..');
const CLI = path.join(__dirname, 'cli', 'index.js');

// Debian's Chromium (never a browser a tool downloads): the report tests' and the Playwright
// engine's (lab/report/chromium.js, lab/generators/artillery-script.js).
const CHROMIUM = process.env.LAB_CHROMIUM || '/usr/bin/chromium';

module.exports = { ROOT, CLI, CHROMIUM };
