#!/usr/bin/env node
'use strict';

// `npx node-deploy-lab <command> [args]` (or `npx ndlab`): the lab installed as a package in a
// project. What `npm run <command>` does in the lab's checkout: the set-up first for the
// commands that deploy (nginx and the rest, installed when missing, as scripts/setup.sh
// says), then the command (./index.js). LAB_SETUP=skip leaves the set-up out (a machine
// prepared once; the library's runs, which their caller prepared).

const path = require('node:path');
const { spawnSync } = require('node:child_process');

// The commands whose npm script runs the set-up before them: read from package.json's scripts,
// their one definition.
const { scripts } = require('../../package.json');
const NEEDS_SETUP = new Set(
  Object.entries(scripts)
    .filter(([, line]) => /^bash scripts\/setup\.sh run && exec node lab\/cli \w+$/.test(line))
    .map(([name]) => name),
);

function setUp(command, env = process.env) {
  if (!NEEDS_SETUP.has(command) || env.LAB_SETUP === 'skip') return 0;
  if (process.argv.includes('--help') || process.argv.includes('-h')) return 0;
  const script = path.join(__dirname, '..', '..', 'scripts', 'setup.sh');
  // (Its words on stderr, as the npm scripts' are: stdout stays the command's, for --json.)
  const r = spawnSync('bash', [script, 'run'], { stdio: ['ignore', 2, 2] });
  if (r.error) {
    process.stderr.write(`lab: the set-up could not start (${r.error.code}): bash is needed [LAB_ERR_SETUP]\n`);
    return 1;
  }
  return r.status ?? 1;
}

if (require.main === module) {
  const code = setUp(process.argv[2]);
  if (code !== 0) process.exit(code);
  require('./index.js');
}

module.exports = { NEEDS_SETUP, setUp };
