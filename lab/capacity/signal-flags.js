'use strict';

// `npm run signal`'s flags (capacity's signaling form: `capacity --memory ...`): the one table
// its command line is checked with, read by the command (lab/commands/signal/), by a study that
// gives its run the options as a job (../run/job.js), and by the library; and the HTTP search's
// flags given to it, said as the other command's.

const { defineCommand, flag } = require('../terminal/flags');
const { CONTEXT } = require('../topology/context');
const { DASHBOARD_FLAGS } = require('../dashboard/flag');
const { parseMemory } = require('../topology/caps');
const { labError } = require('../../common/errors');
const { FLAG_NAMES: HTTP_FLAGS } = require('./plan');

const USAGE = `usage: npm run signal -- [--memory 500M] [--levels 1000,2000,5000,10000] [options]
       (npm run capacity -- --memory ... is the same command)
How many signaling connections one service process holds under a memory limit, two ways
(seed 002): an estimate from a fit of its memory at several connection counts, then a
verification under that very limit, raising the participants until the first failure.
  --memory SIZE      the limit (K/M/G; default 500M, the seed's VM)
  --levels a,b,...   connection counts held for the fit (default 1000,2000,5000,10000)
  --hold D           how long each level is held before its memory is read (default 10s)
  --ramp-per-s N     participants started a second (default 500)
  --max N            the most participants the verification asks for (default: what this
                     machine's generator can open, from its open-file limit, at most 100000)
  --no-verify        the estimate only
  --plan             print the steps and how long they take, and exit
  --results-dir DIR  where capacity.json and capacity.html go (default results/)
  --run-dir DIR      exactly this folder instead (a new or empty one, or one the lab made)
  --dashboard [PORT] a live page on 127.0.0.1:PORT (default 5665): the step, participants
                     and memory second by second, the levels held so far
  --port-base P, --host H, --state-dir DIR, --json`;

const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { names: [] },
  flags: {
    ...CONTEXT,
    memory: { type: 'custom', parse: (raw) => parseMemory(raw, raw), expected: 'a size like 500M or 1G (at least 4M)' },
    levels: flag.pattern(/^\d+(,\d+)+$/, 'two or more counts, like 1000,2000,5000'),
    hold: flag.duration(),
    'ramp-per-s': flag.int(1, 5000),
    max: flag.int(1, 1000000),
    'no-verify': flag.bool(),
    plan: flag.bool(),
    'results-dir': flag.path(),
    'run-dir': flag.path(),
    ...DASHBOARD_FLAGS,
  },
});

// A flag of the HTTP search given here (capacity --memory 500M --verify-hold 10m): said as the
// other command's, with what picks each, not as an unknown option.
function httpFlagInSignal(err) {
  if (err.code !== 'LAB_ERR_UNKNOWN_FLAG') return null;
  const m = /unknown option (--[\w-]+)/.exec(err.message);
  const name = m?.[1].slice(2);
  if (!name || !HTTP_FLAGS.includes(name)) return null;
  return labError(
    'LAB_ERR_FLAGS_EXCLUDE',
    name,
    'memory',
    `--${name} is the HTTP search's (capacity <endpoint> ...), and the signaling connections' estimate (--memory, --levels, --max) takes none of its flags: give an endpoint, a path or --script for the HTTP search, or leave --${name} out`,
  );
}

module.exports = { USAGE, COMMAND, httpFlagInSignal };
