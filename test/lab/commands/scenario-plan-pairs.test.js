'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const scenario = require('../../../lab/commands/scenario');
const { planText } = require('../../../lab/run/plan-text');
const { makeCerts } = require('../../../lab/tls/certs');
const { ROOT, flagsOf } = require('../../helper');

// Nothing taken and then ignored: every new flag, alone and beside every other, either changes
// what `--plan` says (the plan the run is made from: lab/commands/scenario/plan.js) or is refused
// (exit 2, or the kind's own refusal). It once took --pre-stop without a rollout, --streams
// without HTTP/2, --tls-resume without TLS, a --tls-ca with no --tls-cert, --autoscale
// 2-4 with --replicas 6, and ran as if they were not there.
const FIX = path.join(ROOT, 'test', 'fixtures');
const apps = (name) => path.join(FIX, 'apps', name);
const certs = makeCerts(fs.mkdtempSync(path.join(os.tmpdir(), 'lab-plan-certs-')));
const FLAGS = {
  tls: ['--tls'],
  http2: ['--http2'],
  // (A certificate of yours is given with its key: each alone is refused, as the first test says.)
  'tls-cert': ['--tls-cert', certs.cert, '--tls-key', certs.key],
  'tls-ca': ['--tls-ca', certs.ca],
  'tls-resume': ['--tls-resume', 'off'],
  streams: ['--streams', '4'],
  autoscale: ['--autoscale', '1-4'],
  'autoscale-metric': ['--autoscale-metric', 'loop'],
  'autoscale-target': ['--autoscale-target', '70'],
  'rollout-at': ['--rollout-at', '5'],
  'pre-stop': ['--pre-stop', '2s'],
  grace: ['--grace', '5s'],
  'max-surge': ['--max-surge', '2'],
  'max-unavailable': ['--max-unavailable', '1'],
  'app-next': ['--app-next', apps('rolling-v2')],
  profile: ['--profile'],
  'profile-window': ['--profile-window', '2-8'],
  'profile-interval': ['--profile-interval', '500'],
  payload: ['-p', 'plan-rows-2.csv'],
  variables: ['-v', '{"n": 3}'],
  dotenv: ['--dotenv', path.join(FIX, 'scripts', 'plan.env')],
  overrides: ['--overrides', '{"config": {"variables": {"z": 1}}}'],
  'scenario-name': ['--scenario-name', 'buy'],
  cap: ['--cap', 'replica=50%,64M'],
};
const BASE = [
  '--script',
  path.join(FIX, 'scripts', 'plan-flags.yml'),
  'replicated',
  ...flagsOf({
    app: apps('rolling'),
    generator: 'fast',
    stateDir: fs.mkdtempSync(path.join(os.tmpdir(), 'lab-plan-state-')),
  }),
];

// Flags another one implies, taken beside it as the same thing: --http2 is over TLS, a
// certificate of yours is one for TLS.
const IMPLIED = { tls: ['http2', 'tls-cert'] };

// The plan's text, or the refusal: { text } or { refused: code, message (its first line) }. (A
// refusal of the machine's, a missing program, would be a failure here: none of these needs one.)
function planOf(flags) {
  try {
    const p = scenario.plan([...BASE, ...flags.flatMap((f) => FLAGS[f])]);
    return { text: planText(p) };
  } catch (err) {
    if (err.exitCode !== 2) throw err;
    return { refused: err.code, message: err.message.split('\n')[0] };
  }
}

// The refusals a flag or a pair may get here: what it needs, what it excludes, what the
// generator cannot do. Not a misspelling (LAB_ERR_UNKNOWN_FLAG), a bad value, or anything else:
// the flags' values above are all good, so any other code is a defect of the test or the lab.
const PAIR_CODES = ['LAB_ERR_FLAG_NEEDS', 'LAB_ERR_FLAGS_EXCLUDE', 'LAB_ERR_GENERATOR_FLAG'];
// Whether a refusal's first line names the flag as typed (-p, --tls-resume...).
// The flags that need another (refused alone), and the pairs that exclude each other (refused
// though each alone is taken).
const NEED_ANOTHER = [
  'tls-ca',
  'tls-resume',
  'streams',
  'autoscale-metric',
  'autoscale-target',
  'pre-stop',
  'grace',
  'max-surge',
  'max-unavailable',
  'app-next',
  'profile-window',
  'profile-interval',
];
// (One deployment cannot be autoscaled and rolled out in the same run.)
const EXCLUSIVE = ['autoscale rollout-at'];
const named = (refusal, f) => refusal.message.includes(FLAGS[f][0]);

test('every flag alone changes the plan, or is refused', () => {
  const base = planOf([]).text;
  expect(base).toMatch(/^plan-flags\.yml script on replicated/);
  for (const f of Object.keys(FLAGS)) {
    const r = planOf([f]);
    expect({ f, same: r.refused ? false : r.text === base }).toEqual({ f, same: false });
    // A refusal alone: what the flag needs, naming it as typed.
    if (r.refused)
      expect({ f, code: r.refused, named: named(r, f) }).toEqual({ f, code: 'LAB_ERR_FLAG_NEEDS', named: true });
  }
  // The flags refused alone are those that need another, no more.
  expect(Object.keys(FLAGS).filter((f) => planOf([f]).refused)).toEqual(NEED_ANOTHER);
  const lone = (flag, file) => {
    try {
      scenario.plan([...BASE, flag, file]);
    } catch (err) {
      return err.code;
    }
    return 'taken';
  };
  expect(lone('--tls-cert', certs.cert)).toBe('LAB_ERR_FLAG_NEEDS');
  expect(lone('--tls-key', certs.key)).toBe('LAB_ERR_FLAG_NEEDS');
});

test('every pair of flags: each changes the plan beside the other, or the pair is refused', () => {
  const names = Object.keys(FLAGS);
  const alone = Object.fromEntries(names.map((f) => [f, planOf([f])]));
  let taken = 0;
  const exclusive = [];
  for (let i = 0; i < names.length; i++) {
    for (let j = i + 1; j < names.length; j++) {
      const [f, g] = [names[i], names[j]];
      const both = planOf([f, g]);
      if (both.refused) {
        // Refused for the pair's sake, naming a flag of it as typed; where each alone is
        // taken, it is the pair that is refused: both named.
        const eachTaken = !alone[f].refused && !alone[g].refused;
        expect({
          pair: [f, g],
          code: PAIR_CODES.includes(both.refused),
          named: eachTaken ? named(both, f) && named(both, g) : named(both, f) || named(both, g),
        }).toEqual({ pair: [f, g], code: true, named: true });
        // A flag refused alone for what it needs is refused the same way beside a flag that
        // does not give it.
        for (const one of [f, g])
          if (alone[one].refused && both.message === alone[one].message) expect(both.refused).toBe(alone[one].refused);
        if (eachTaken) exclusive.push([f, g].join(' '));
        continue;
      }
      taken += 1;
      // Taken together, each flag of the pair shows in the plan: adding g to f changed it, and
      // adding f to g did (when one alone was refused, the pair is what makes it taken).
      for (const [one, other] of [
        [f, g],
        [g, f],
      ]) {
        if (IMPLIED[one]?.includes(other)) continue;
        const without = alone[other];
        const same = !without.refused && without.text === both.text;
        expect({ pair: [f, g], added: one, same }).toEqual({ pair: [f, g], added: one, same: false });
      }
    }
  }
  // The pairs refused though each flag alone is taken are the ones that exclude each other, no
  // more; every other pair of flags taken alone is taken, each flag showing in the plan.
  expect(exclusive.sort()).toEqual(EXCLUSIVE);
  expect(taken).toBeGreaterThan(0);
});
