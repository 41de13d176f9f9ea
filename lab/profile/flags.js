'use strict';

const { flag } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const { parseWindow, SECONDS } = require('./window');

// --profile and what goes with it, on every command that runs load (scenario, capacity, study):
// parsed once, checked together, and passed on to the runs a command makes.
const PROFILE_FLAGS = {
  profile: flag.bool(),
  'profile-window': {
    type: 'custom',
    parse: parseWindow,
    expected: 'FROM-TO, seconds into the load (like 20-30)',
    needs: { flags: ['profile'], why: 'it is the window of the profile' },
  },
  'profile-interval': {
    ...flag.int(100, 100000),
    needs: { flags: ['profile'], why: "it is the profiler's sampling interval" },
  },
};

const PROFILE_HELP = `  --profile        CPU profiles of every Node process of the service over a window of the load
                   (the busiest ${SECONDS} s, or --profile-window FROM-TO seconds), their hottest
                   functions and a flame graph per node; the database's heaviest statements
                   and the cache's commands (docs/profiles.md)
  --profile-interval US  the profiler's sampling interval in microseconds (default 1000)`;

// -> { window, seconds, us } or null; a flag of the profile without --profile, or with
// --no-probe (the profiles come through the runtime probe), is refused.
function profileOf(values) {
  // (--profile-window and --profile-interval without --profile: refused by their flags' needs.)
  if (!values.profile) return null;
  if (values['no-probe'])
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'profile',
      'no-probe',
      "--profile profiles the service's processes through the runtime probe, which --no-probe leaves out: give one of them",
    );
  return { window: values['profile-window'] ?? null, seconds: SECONDS, us: values['profile-interval'] ?? 1000 };
}

// The flags as a command line shows them (what capacity's plan says each level adds, and what
// makes two searches the same). The runs a command makes get the values (lab/run/job.js).
const profileArgs = (values) => [
  ...(values.profile ? ['--profile'] : []),
  ...(values['profile-interval'] !== undefined ? ['--profile-interval', String(values['profile-interval'])] : []),
];

module.exports = { PROFILE_FLAGS, PROFILE_HELP, profileOf, profileArgs };
