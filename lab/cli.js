#!/usr/bin/env node
'use strict';

const { pick } = require('./names');
const { cleanup, trapSignals, interrupted } = require('./owner');

// `node lab/cli.js <command> [args]`: one file per command under lab/commands. Each command
// returns { stdout } (what a script may parse) and logs progress on stderr. Exit codes:
// 0 ok, 1 the run failed, 2 bad usage, 130 interrupted.
const COMMANDS = {
  deploy: () => require('./commands/deploy'),
  status: () => require('./commands/status'),
  down: () => require('./commands/down'),
  scenario: () => require('./commands/scenario'),
  characterize: () => require('./commands/characterize'),
  report: () => require('./commands/report'),
  compare: () => require('./commands/compare'),
  study: () => require('./commands/study'),
};

const log = (msg) => process.stderr.write(`lab: ${msg}\n`);

async function main(argv) {
  trapSignals();
  let code = 0;
  try {
    const name = pick('command', argv[0], COMMANDS);
    const result = await name()(argv.slice(1), { log });
    if (result && result.stdout) process.stdout.write(`${result.stdout}\n`);
    if (result && result.exitCode) code = result.exitCode;
  } catch (err) {
    if (interrupted()) {
      // The signal handler reports and exits 130 once its cleanup is done.
      await cleanup();
      return process.exit(130);
    }
    if (err.code && err.code.startsWith('LAB_ERR_')) {
      process.stderr.write(`lab: ${err.message}\n`);
      code = err.exitCode;
    } else {
      process.stderr.write(`lab: unexpected failure: ${err.stack}\n`);
      code = 1;
    }
  }
  await cleanup();
  // Explicit: pm2's client keeps handles open after it disconnects. An interrupt wins over
  // whatever the command returned meanwhile.
  process.exit(interrupted() ? 130 : code);
}

main(process.argv.slice(2));
