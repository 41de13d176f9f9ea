#!/usr/bin/env node
'use strict';

// The Debian packages the lab's nodes need, from their own declarations (each kind's
// `programs` in lab/kinds/, each store's `package` in lab/stores/): scripts/setup.sh asks this
// script rather than listing them by hand, so a kind added is a package installed.
//   node scripts/programs.js apt run   the entry's default kinds (nginx, at L7 and L4)
//   node scripts/programs.js apt all   every kind's and every data store's
// It runs before `npm ci` may have: it requires nothing but the lab's own tables.

const { KINDS } = require('../lab/kinds');
const { STORES } = require('../lab/stores');

const SETS = {
  run: () => Object.values(KINDS).filter((k) => k.nginx),
  all: () => [...Object.values(KINDS), ...Object.values(STORES).map((s) => ({ programs: { apt: [s.package] } }))],
};

function packages(set) {
  return [...new Set(SETS[set]().flatMap((x) => x.programs?.apt || []))];
}

if (require.main === module) {
  const [what, set] = process.argv.slice(2);
  if (what !== 'apt' || !SETS[set]) {
    process.stderr.write(`usage: node scripts/programs.js apt ${Object.keys(SETS).join('|')}\n`);
    process.exit(2);
  }
  process.stdout.write(`${packages(set).join(' ')}\n`);
}

module.exports = { packages };
