#!/usr/bin/env node
'use strict';

// How many of a folder of Artillery scripts each generator takes (issues 50, 74): every
// Artillery script under DIR (a .yml, .yaml or .json file holding a mapping with `scenarios`;
// config files for -c and other files are listed apart, not counted) is planned (`scenario --script FILE
// --target ... --plan`, nothing started) with --generator artillery, fast and closed; a
// refusal is counted with its reason, and the reasons are grouped by what is missing. Goal,
// on Artillery's own example and test scripts: artillery refuses at most 10, fast at most 30.
// The scripts are not this repository's: give their folder (Artillery's repository, e.g.
// its examples/ and packages/artillery/test/, as the tool library's fetch brings it).
// Writes bench/results/artillery-corpus.json (or --name) with the machine it ran on (file
// names and reasons only).
// With --check-artillery, each script `--generator artillery` refuses is also run by plain
// `artillery run` (the lock file's, in the script's folder, its target a closed port, 40 s at
// most): whether Artillery itself fails it (an exit code other than 0, or no virtual user
// made), so that a refusal is known to be the lab's or Artillery's own.
//   node bench/artillery-corpus.js DIR [--source 'what DIR is'] [--name artillery-corpus] [--check-artillery]
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const YAML = require('yaml');
const { bench, flag } = require('./kit');

const CLI = path.join(__dirname, '..', 'lab', 'cli');
const { ARTILLERY } = require('../lab/generators/artillery-run');
const ARTILLERY_BOUND_MS = 40000;

// Plain `artillery run` on a script: { exit, vusers, said } (said: its first error line).
function artilleryItself(file) {
  const r = spawnSync(process.execPath, [ARTILLERY, 'run', '-t', 'http://127.0.0.1:9', path.basename(file)], {
    cwd: path.dirname(file),
    encoding: 'utf8',
    timeout: ARTILLERY_BOUND_MS,
    env: { ...process.env, ARTILLERY_DISABLE_TELEMETRY: 'true', DO_NOT_TRACK: '1' },
  });
  const out = `${r.stdout}\n${r.stderr}`;
  const created = /vusers\.created:\s*\.*\s*(\d+)/.exec(out);
  const said = out.split('\n').find((l) => /error|must|should not happen|ENOENT/i.test(l)) || null;
  return {
    exit: r.status ?? (r.signal ? `killed (${r.signal}) after ${ARTILLERY_BOUND_MS / 1000} s` : null),
    vusers: created ? Number(created[1]) : 0,
    said: said ? said.trim().slice(0, 200) : null,
  };
}
// Artillery failed it: an exit other than 0, or no virtual user made.
const failsAlone = (a) => a.exit !== 0 || a.vusers === 0;
const GENERATORS = ['artillery', 'fast', 'closed'];

// The files under dir that may be scripts (no package.json, tsconfig or node_modules).
function filesUnder(dir) {
  const files = [];
  (function walk(d) {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'node_modules') walk(p);
      } else if (/\.(ya?ml|json)$/.test(e.name) && !/^(package(-lock)?|tsconfig)\.json$/.test(e.name)) files.push(p);
    }
  })(dir);
  return files.sort();
}

// What a file is: 'script' (a mapping with scenarios), 'config' (a config alone, which
// Artillery's tests give to `run -c` beside a script and which neither Artillery nor the lab
// runs on its own), or null (a CI file, a dashboard, a data file).
function kindOfFile(file) {
  try {
    const d = YAML.parse(fs.readFileSync(file, 'utf8'));
    if (!d || typeof d !== 'object' || Array.isArray(d)) return null;
    return 'scenarios' in d ? 'script' : 'config' in d ? 'config' : null;
  } catch {
    return null;
  }
}

// A refusal's kind, from its words (what is missing), for the counts by reason.
const KINDS = [
  [/the socketio engine|Socket\.IO emit/, 'the socketio engine'],
  [/WebSocket proxy|a connect function/, 'a ws feature'],
  [/the playwright engine|engines other than HTTP/, 'another engine (playwright...)'],
  [/the \S+ engine/, 'another engine'],
  [/plugin/i, 'a plugin'],
  [/TypeScript|\.ts\b/, 'a TypeScript processor'],
  [/formData|multipart/, 'formData'],
  [/without end|no count, over/, 'a loop without end'],
  [/payload|CSV/i, 'a payload (given by -p)'],
  [/no scenarios|has no scenario|config file|scenarios/i, 'config only (given by -c)'],
  [/./, 'other'],
];
const kindOf = (reason) => KINDS.find(([re]) => re.test(reason))[1];

async function run(values, { log, positionals: [dir] }) {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new Error(`${dir} is not a folder`);
  const rows = [];
  const all = filesUnder(dir);
  const kinds = new Map(all.map((f) => [f, kindOfFile(f)]));
  const named = (kind) => all.filter((f) => kinds.get(f) === kind).map((f) => path.relative(dir, f));
  const configs = named('config');
  const notScripts = named(null);
  for (const file of all.filter((f) => kinds.get(f) === 'script')) {
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
  const byReason = Object.fromEntries(
    GENERATORS.map((g) => {
      const counts = {};
      for (const r of rows) if (r[g] !== 'taken') counts[kindOf(r[g])] = (counts[kindOf(r[g])] || 0) + 1;
      return [g, Object.fromEntries(Object.entries(counts).sort((a, b) => b[1] - a[1]))];
    }),
  );
  for (const r of rows) for (const g of GENERATORS) if (r[g] !== 'taken') log(`  ${g} ${r.file}: ${r[g]}`);
  let artilleryToo = null;
  if (values['check-artillery']) {
    const refusedRows = rows.filter((r) => r.artillery !== 'taken');
    for (const [i, r] of refusedRows.entries()) {
      log(`plain artillery run ${i + 1}/${refusedRows.length}: ${r.file}`);
      r.artilleryItself = artilleryItself(path.join(dir, r.file));
    }
    artilleryToo = {
      checked: refusedRows.length,
      failedByArtilleryToo: refusedRows.filter((r) => failsAlone(r.artilleryItself)).length,
      note: "of the scripts --generator artillery refuses, how many plain `artillery run` (the lock file's) fails too, run in its folder against a closed port: an exit code other than 0 or no virtual user made",
    };
  }
  return {
    headline: { scripts: rows.length, refused },
    question: 'how many of a folder of Artillery scripts each generator takes (--plan)',
    goal: "of Artillery's own example and test scripts, --generator artillery refuses at most 10 and fast at most 30",
    source: values.source || dir,
    scripts: rows.length,
    refused,
    byReason,
    ...(artilleryToo ? { artilleryToo } : {}),
    configs,
    configsNote: 'config files alone (no scenarios), for `artillery run -c` beside a script: not counted',
    notScripts,
    rows,
  };
}

module.exports = bench(
  {
    name: process.argv.includes('--name') ? process.argv[process.argv.indexOf('--name') + 1] : 'artillery-corpus',
    usage: "node bench/artillery-corpus.js DIR [--source 'what DIR is'] [--name artillery-corpus] [--check-artillery]",
    positionals: { names: ['dir'] },
    flags: {
      source: { type: 'string', default: '' },
      name: { type: 'string', default: 'artillery-corpus' },
      'check-artillery': flag.bool(),
    },
    run,
  },
  module,
);
