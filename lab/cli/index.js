#!/usr/bin/env node
'use strict';

// (First: every module loaded after it is compiled from the cache, ./compile-cache.js.)
require('./compile-cache').enableCompileCache();
const { pick } = require('../names');
const { labError } = require('../../common/errors');
const { cleanup, trapSignals, interrupted } = require('../ownership/cleanups');
const { decide, runAgain } = require('./pinned-node');
const { isHttp } = require('../capacity/forms');
const { readJob, readStdinJob } = require('../run/job');

// `node lab/cli <command> [args]`: one file per command under lab/commands. Each command
// returns { stdout } (what a script may parse) and logs progress on stderr. Exit codes:
// 0 ok, 1 the run failed, 2 bad usage, 130 interrupted.
// (capacity's signaling form is the signal command: lab/capacity/forms.js tells them apart.)
const capacityForm = (argv) =>
  argv.includes('--help') || argv.includes('-h') || isHttp(argv)
    ? require('../commands/capacity')
    : require('../commands/signal');
const COMMANDS = {
  deploy: () => require('../commands/deploy'),
  status: () => require('../commands/status'),
  down: () => require('../commands/down'),
  scenario: () => require('../commands/scenario'),
  characterize: () => require('../commands/characterize'),
  capacity: capacityForm,
  signal: () => require('../commands/signal'),
  choose: () => require('../commands/choose'),
  scale: () => require('../commands/scale'),
  rollout: () => require('../commands/rollout'),
  report: () => require('../commands/report'),
  compare: () => require('../commands/compare'),
  study: () => require('../commands/study'),
  cluster: () => require('../commands/cluster'),
};

// A child run given its options as a job (../run/job.js) by a parent that parsed and checked
// them: `node lab/cli --job FILE` (or `--job -`: on the standard input), or `node lab/cli
// COMMAND --job FILE|-` where the job must be that command's (the library's: ./bin.js runs the
// command's set-up first). Only the commands that read a job's parsed form as they read a
// command line (their flag table's read()).
const JOB_COMMANDS = {
  scenario: () => require('../commands/scenario'),
  capacity: () => require('../commands/capacity'),
  signal: () => require('../commands/signal'),
  characterize: () => require('../commands/characterize'),
  deploy: () => require('../commands/deploy'),
  down: () => require('../commands/down'),
  choose: () => require('../commands/choose'),
  study: () => require('../commands/study'),
  compare: () => require('../commands/compare'),
};
async function runJob(argv, named = null) {
  if (argv.length !== 2)
    throw labError('LAB_ERR_USAGE', 'usage: node lab/cli [COMMAND] --job FILE|- (a job a lab run wrote, or on stdin)');
  if (named !== null) {
    // (An unknown command refused as on a command line, with its nearest.)
    pick('command', named, COMMANDS);
    if (!JOB_COMMANDS[named]) throw labError('LAB_ERR_JOB', `${named} takes no job`);
  }
  const { command, ...job } = argv[1] === '-' ? await readStdinJob() : readJob(argv[1]);
  if (!JOB_COMMANDS[command]) throw labError('LAB_ERR_JOB', `${argv[1]}: ${command} takes no job`);
  if (named !== null && named !== command)
    throw labError('LAB_ERR_JOB', `${argv[1]}: a job for ${command}, given to ${named}`);
  return JOB_COMMANDS[command]()(job, { log });
}

const USAGE = `usage: node lab/cli <command> [args]   (or npm run <command> -- [args])
commands: ${Object.keys(COMMANDS).join(', ')}; each takes --help`;

const log = (msg) => process.stderr.write(`lab: ${msg}\n`);

// One line a user can act on, with its code (scripts and tests match the code, not the
// words); the stack only when LAB_DEBUG=1.
function reportError(err) {
  const debug = process.env.LAB_DEBUG === '1' || process.env.LAB_DEBUG === 'true';
  if (err.code && String(err.code).startsWith('LAB_ERR_')) {
    // The code ends the first line; a usage text, when there is one, follows it.
    const [first, ...rest] = err.message.split('\n');
    const more = rest.length ? `${rest.join('\n')}\n` : '';
    process.stderr.write(`lab: ${first} [${err.code}]\n${more}${debug ? `${err.stack}\n` : ''}`);
    return err.exitCode;
  }
  process.stderr.write(
    `lab: unexpected failure: ${err.message}\n${debug ? `${err.stack}\n` : 'lab: (LAB_DEBUG=1 shows where it failed)\n'}`,
  );
  return 1;
}

// Node ends a process whose event loop has nothing left with exit code 0, even when the
// command (or its clean-up) still awaits a promise nothing will settle: a run with no
// answer would then pass for a good one. Reaching that point is a failure of the lab's.
function exitOnEmptyLoop() {
  process.on('beforeExit', () => {
    const during = interrupted() ? 'stopping after an interrupt' : 'running';
    process.stderr.write(
      `lab: the command ended while ${during} with nothing left to wait for, and no answer [LAB_ERR_INTERNAL]\nlab: (LAB_DEBUG=1 shows more; \`npm run down\` stops what a deployment left)\n`,
    );
    process.exit(interrupted() ? 130 : 1);
  });
}

async function main(argv) {
  trapSignals();
  exitOnEmptyLoop();
  let code = 0;
  try {
    if (argv[0] === '--help' || argv[0] === '-h') {
      process.stdout.write(`${USAGE}\n`);
      return process.exit(0);
    }
    if (argv[0] === undefined) throw labError('LAB_ERR_MISSING_ARG', 'a command', USAGE);
    const result =
      argv[0] === '--job'
        ? await runJob(argv)
        : argv[1] === '--job'
          ? await runJob(argv.slice(1), argv[0])
          : await pick('command', argv[0], COMMANDS)(argv.slice(1))(argv.slice(1), { log });
    // (Written out before the exit below: to a pipe read slowly, Node writes asynchronously,
    // and an exit with the write pending cut a capacity's JSON at 64 KiB.)
    if (result && result.stdout) await new Promise((r) => process.stdout.write(`${result.stdout}\n`, r));
    if (result && result.exitCode) code = result.exitCode;
  } catch (err) {
    if (interrupted()) {
      // The signal handler reports and exits 130 once its cleanup is done.
      await cleanup();
      return process.exit(130);
    }
    code = reportError(err);
  }
  await cleanup();
  // Explicit: pm2's client keeps handles open after it disconnects. An interrupt wins over
  // whatever the command returned meanwhile.
  process.exit(interrupted() ? 130 : code);
}

// On the lab's own Node, or on it again (./pinned-node.js).
let start = 'run';
try {
  start = decide();
} catch (err) {
  process.exit(reportError(err));
}
if (start === 'run') main(process.argv.slice(2));
else runAgain(start.again, __filename, process.argv.slice(2));
