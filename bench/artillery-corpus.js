#!/usr/bin/env node
'use strict';

// How many of a folder of Artillery scripts each generator takes (issue 50): every .yml,
// .yaml and .json file under DIR is planned (`scenario --script FILE --target ... --plan`,
// nothing started) with --generator artillery, fast and closed; a refusal is counted with its
// reason. Goal, on Artillery's own example and test scripts: artillery refuses at most those
// that need command-line input; fast at most 50 of 130 (other engines, and what no HTTP
// engine can do). The scripts are not this repository's: give their folder.
// Writes bench/results/artillery-corpus.json with the machine it ran on (file names and
// reasons only).
//   node bench/artillery-corpus.js DIR [--source 'what DIR is']
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { bench } = require('./kit');

const CLI = path.join(__dirname, '..', 'lab', 'cli');
const GENERATORS = ['artillery', 'fast', 'closed'];

function scriptsUnder(dir) {
  const files = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ya?ml|json)$/.test(e.name)) files.push(p);
    }
  })(dir);
  return files.sort();
}

async function run(values, { log, positionals: [dir] }) {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  const rows = [];
  for (const file of scriptsUnder(dir)) {
    const row = { file: path.relative(dir, file) };
    for (const g of GENERATORS) {
      const r = spawnSync(
        process.execPath,
        [CLI, 'scenario', '--script', file, '--target', 'http://127.0.0.1:9', '--generator', g, '--plan'],
        { encoding: 'utf8', timeout: 30000 },
      );
      row[g] = r.status === 0 ? 'taken' : (r.stderr.trim().split('\n')[0] || `exit ${r.status}`).replace(/^lab: /, '');
    }
    rows.push(row);
  }
  const refused = Object.fromEntries(GENERATORS.map((g) => [g, rows.filter((r) => r[g] !== 'taken').length]));
  for (const r of rows) for (const g of GENERATORS) if (r[g] !== 'taken') log(`  ${g} ${r.file}: ${r[g]}`);
  return {
    headline: { scripts: rows.length, refused },
    question: 'how many of a folder of Artillery scripts each generator takes (--plan)',
    source: values.source || dir,
    scripts: rows.length,
    refused,
    rows,
  };
}

module.exports = bench(
  {
    name: 'artillery-corpus',
    usage: "node bench/artillery-corpus.js DIR [--source 'what DIR is']",
    positionals: { names: ['dir'] },
    flags: { source: { type: 'string', default: '' } },
    run,
  },
  module,
);
