'use strict';

// The flags choose passes on (lab/commands/choose/plan.js): to every sweep, capacity's own
// (the same specs, the same parse and bounds), so each passes on as the value choose parsed
// (lab/run/job.js passOn); to the autoscaler's run, a scenario, the service's, its requests'
// and the script's. (choose's --search-hold is capacity's --hold.)

const { COMMAND: CAPACITY } = require('../capacity/plan');
const { APP_FLAGS } = require('../app/flags');
const { SCRIPT_RUN_FLAGS, SCRIPT_FLAG_NAMES } = require('../scenario/script-flags');

const PASSED_NAMES = [
  // (The script and its flags first: a command line shown reads as capacity's own.)
  'script',
  ...Object.keys(SCRIPT_RUN_FLAGS),
  'start',
  'min-rate',
  'max-rate',
  'precision',
  'repetitions',
  'verify-hold',
  'recovery-wait',
  'warmup',
  'max-levels',
  'time-limit',
  'fresh-per-level',
  'method',
  'body',
  'expect-status',
  'header',
  ...Object.keys(APP_FLAGS),
];
const PASSED = Object.fromEntries(PASSED_NAMES.map((n) => [n, CAPACITY.specs[n]]));
// Each flag passed on: to a sweep (capacity) and to the autoscaler's run (scenario: the service,
// its requests, the script), by its name there.
const TO_CAPACITY = { ...Object.fromEntries(PASSED_NAMES.map((n) => [n, n])), 'search-hold': 'hold' };
const TO_SCENARIO = Object.fromEntries(
  [...Object.keys(APP_FLAGS), 'method', 'body', 'header', 'expect-status', 'script', ...SCRIPT_FLAG_NAMES].map((n) => [
    n,
    n,
  ]),
);

module.exports = { PASSED, TO_CAPACITY, TO_SCENARIO };
