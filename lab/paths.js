'use strict';

const path = require('node:path');

// Where the lab's own files are, for the modules that start programs or write results.
const ROOT = path.join(__dirname, '..');
const CLI = path.join(__dirname, 'cli', 'index.js');

module.exports = { ROOT, CLI };
