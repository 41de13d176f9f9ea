#!/usr/bin/env node
'use strict';

// Writes the docs' table of Artillery's features by generator (docs/generators-and-scenarios.md,
// between its features markers) from the declarations the refusals use
// (lab/scenario/artillery-features.js, each generator's `supports`). `--check` only says
// whether the page is up to date (exit 1 when not): a unit test runs it.
const fs = require('node:fs');
const path = require('node:path');
const { featureTable } = require('../lab/scenario/artillery-features');
const { GENERATORS } = require('../lab/generators');

const PAGE = path.join(__dirname, '..', 'docs', 'generators-and-scenarios.md');
// (Prettier leaves the table as written: its own padding would differ from this render.)
const START = '<!-- features:start (written by scripts/docs-features.js) -->\n<!-- prettier-ignore-start -->';
const END = '<!-- prettier-ignore-end -->\n<!-- features:end -->';

function rendered(text) {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${PAGE} has no features markers`);
  return `${text.slice(0, a + START.length)}\n\n${featureTable(GENERATORS)}\n\n${text.slice(b)}`;
}

if (require.main === module) {
  const text = fs.readFileSync(PAGE, 'utf8');
  const next = rendered(text);
  if (process.argv.includes('--check')) {
    if (next !== text) {
      process.stderr.write(`${PAGE}: its feature table is out of date: run node scripts/docs-features.js\n`);
      process.exit(1);
    }
  } else fs.writeFileSync(PAGE, next);
}

module.exports = { rendered, PAGE };
