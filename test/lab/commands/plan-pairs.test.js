'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const capacity = require('../../../lab/capacity/plan');
const choose = require('../../../lab/commands/choose/plan');
const { ROOT } = require('../../helper');

// Nothing taken and then ignored, for the commands that search (issue 83), as for scenario
// (./scenario-plan-pairs.test.js): every flag, alone and beside every other, either changes what
// `--plan` says or is refused with a code of the pair's kind and the flag named as typed.
// (capacity took --cap, --balancer, --tls, --profile, --method, --body, --header,
// --expect-status and --no-probe without its plan saying any of them.)
const SHOP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'lab-plan-pairs-'))];
const runDir = path.join(os.tmpdir(), `lab-plan-pairs-run-${process.pid}`);

// The refusals a flag or a pair may get: what it needs, what it excludes (never a misspelling,
// a bad value or anything else: every value here is good).
const PAIR_CODES = ['LAB_ERR_FLAG_NEEDS', 'LAB_ERR_FLAGS_EXCLUDE', 'LAB_ERR_FLAG_VALUE'];

function planOf(cmd, flags) {
  try {
    return { text: cmd.planText(cmd.plan([...cmd.base, ...flags.flatMap((f) => cmd.FLAGS[f]), ...where()])) };
  } catch (err) {
    if (err.exitCode !== 2) throw err;
    return { refused: err.code, message: err.message.split('\n')[0] };
  }
}

const SEARCH = {
  slo: ['--slo', 'p99<300'],
  start: ['--start', '20'],
  'max-rate': ['--max-rate', '400'],
  'min-rate': ['--min-rate', '2'],
  'recovery-wait': ['--recovery-wait', '30s'],
  'fresh-per-level': ['--fresh-per-level'],
  precision: ['--precision', '10%'],
  repetitions: ['--repetitions', '2'],
  'verify-hold': ['--verify-hold', '20s'],
  warmup: ['--warmup', '3s'],
  'max-levels': ['--max-levels', '10'],
  'time-limit': ['--time-limit', '20m'],
  replicas: ['--replicas', '1,2,3,4'],
  workers: ['--workers', '3'],
  cap: ['--cap', 'replica=50%'],
  method: ['--method', 'POST'],
  body: ['--body', '{"a":1}'],
  header: ['--header', 'x-a: 1'],
  'expect-status': ['--expect-status', '2xx'],
  'no-probe': ['--no-probe'],
  'run-dir': ['--run-dir', runDir],
};
const COMMANDS = {
  capacity: {
    ...capacity,
    base: ['/api/items', '--app', SHOP],
    FLAGS: {
      ...SEARCH,
      deployments: ['--deployments', 'multi-replicated'],
      hold: ['--hold', '5s'],
      predict: ['--predict', '6'],
      need: ['--need', '100'],
      'replicas-for': ['--replicas-for', '100'],
      'max-replicas': ['--max-replicas', '3'],
      balancer: ['--balancer', 'haproxy'],
      tls: ['--tls'],
      profile: ['--profile'],
    },
    // Flags that need another (refused alone), and pairs that exclude each other.
    NEED_ANOTHER: ['workers', 'predict', 'need', 'replicas-for', 'max-replicas'],
    EXCLUSIVE: ['fresh-per-level recovery-wait', 'no-probe profile'],
  },
  choose: {
    ...choose,
    base: ['/api/items', '--app', SHOP, '--rate', '20'],
    FLAGS: {
      ...SEARCH,
      replicas: ['--replicas', '1,2,3,4,5'],
      headroom: ['--headroom', '20%'],
      shapes: ['--shapes', 'multi-replicated'],
      balancers: ['--balancers', 'nginx,haproxy'],
      'max-replicas': ['--max-replicas', '8'],
      hold: ['--hold', '30s'],
      tries: ['--tries', '3'],
      'search-hold': ['--search-hold', '5s'],
      'no-check-autoscale': ['--no-check-autoscale'],
    },
    NEED_ANOTHER: [],
    EXCLUSIVE: ['fresh-per-level recovery-wait'],
  },
};

describe.each(Object.keys(COMMANDS))('%s', (name) => {
  const cmd = COMMANDS[name];
  const names = Object.keys(cmd.FLAGS);
  const typed = (f) => cmd.FLAGS[f][0];
  let alone;
  beforeAll(() => {
    alone = Object.fromEntries(names.map((f) => [f, planOf(cmd, [f])]));
  });

  test('every flag alone changes the plan, or is refused for what it needs, named as typed', () => {
    const base = planOf(cmd, []).text;
    expect(base).toBeDefined();
    for (const f of names) {
      const r = alone[f];
      if (r.refused)
        expect({ f, code: r.refused, named: r.message.includes(typed(f)) }).toEqual({
          f,
          code: 'LAB_ERR_FLAG_NEEDS',
          named: true,
        });
      else expect({ f, same: r.text === base }).toEqual({ f, same: false });
    }
    expect(names.filter((f) => alone[f].refused)).toEqual(cmd.NEED_ANOTHER);
  });

  test('every pair: each flag changes the plan beside the other, or the pair is refused naming one of them', () => {
    const exclusive = [];
    let taken = 0;
    for (let i = 0; i < names.length; i++) {
      for (let j = i + 1; j < names.length; j++) {
        const [f, g] = [names[i], names[j]];
        const both = planOf(cmd, [f, g]);
        if (both.refused) {
          const eachTaken = !alone[f].refused && !alone[g].refused;
          const named = eachTaken
            ? both.message.includes(typed(f)) && both.message.includes(typed(g))
            : both.message.includes(typed(f)) || both.message.includes(typed(g));
          expect({ pair: [f, g], code: PAIR_CODES.includes(both.refused), named, message: both.message }).toEqual({
            pair: [f, g],
            code: true,
            named: true,
            message: both.message,
          });
          if (eachTaken) exclusive.push([f, g].sort().join(' '));
          continue;
        }
        taken += 1;
        for (const [one, other] of [
          [f, g],
          [g, f],
        ]) {
          const without = alone[other];
          const same = !without.refused && without.text === both.text;
          expect({ pair: [f, g], added: one, same }).toEqual({ pair: [f, g], added: one, same: false });
        }
      }
    }
    expect(exclusive.sort()).toEqual(cmd.EXCLUSIVE);
    expect(taken).toBeGreaterThan(0);
  });
});
