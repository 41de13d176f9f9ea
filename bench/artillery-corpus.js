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
const { parseArgs } = require('node:util');
const { spawnSync } = require('node:child_process');
const describeMachine = require('../common/machine');

const { values, positionals } = parseArgs({
  options: { source: { type: 'string', default: '' } },
  allowPositionals: true,
});
const dir = positionals[0];
if (!dir || !fs.existsSync(dir)) {
  process.stderr.write('usage: node bench/artillery-corpus.js DIR [--source TEXT]\n');
  process.exit(2);
}
const files = [];
(function walk(d) {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    const p = path.join(d, e.name);
    if (e.isDirectory()) walk(p);
    else if (/\.(ya?ml|json)$/.test(e.name)) files.push(p);
  }
})(dir);

const CLI = path.join(__dirname, '..', 'lab', 'cli');
const GENERATORS = ['artillery', 'fast', 'closed'];
const rows = [];
for (const file of files.sort()) {
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
const refused = (g) => rows.filter((r) => r[g] !== 'taken');
const out = {
  question: 'how many of a folder of Artillery scripts each generator takes (--plan)',
  source: values.source || dir,
  scripts: rows.length,
  refused: Object.fromEntries(GENERATORS.map((g) => [g, refused(g).length])),
  rows,
  machine: describeMachine(),
  at: new Date().toISOString(),
};
const file = path.join(__dirname, 'results', 'artillery-corpus.json');
fs.writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
for (const g of GENERATORS) process.stdout.write(`${g}: refuses ${out.refused[g]} of ${rows.length}\n`);
for (const r of rows) {
  for (const g of GENERATORS) if (r[g] !== 'taken') process.stdout.write(`  ${g} ${r.file}: ${r[g]}\n`);
}
