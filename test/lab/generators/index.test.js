'use strict';

// What a generator refuses, each refusal with its own code (common/errors.js): a pipeline or a
// user's script can tell a flag of another generator from a script only Artillery runs.

const { GENERATORS, refusal } = require('../../../lab/generators');

const model = (over = {}) => ({ features: [], foreign: [], unknown: [], ...over });

test('a run a generator takes is not refused', () => {
  expect(refusal(GENERATORS.artillery, { given: new Set(['generator']), model: model() })).toBeNull();
  expect(refusal(GENERATORS.fast, { given: new Set(['keepalive', 'pipelining']) })).toBeNull();
});

test.each([
  [
    'a flag of another generator',
    'artillery',
    { given: new Set(['keepalive']) },
    'LAB_ERR_GENERATOR_FLAG',
    /^--keepalive is for --generator fast or closed, not --generator artillery$/,
  ],
  [
    'a flag without the one it needs',
    'closed',
    { given: new Set(['pipelining']) },
    'LAB_ERR_FLAG_NEEDS',
    /^--pipelining needs --keepalive: requests are pipelined on a connection that stays open$/,
  ],
  [
    'an ask it does not support',
    'closed',
    { asks: [{ needs: 'rates', text: '--rate (arrival rates)' }] },
    'LAB_ERR_GENERATOR_ASK',
    /^--rate \(arrival rates\) needs --generator artillery or fast$/,
  ],
  [
    'a script only Artillery runs',
    'fast',
    {
      model: model({
        foreign: [
          { feature: 'the playwright engine', where: 'scenarios[0].engine' },
          { feature: 'x', where: 'y' },
        ],
      }),
    },
    'LAB_ERR_SCRIPT_FOREIGN',
    /^the script uses the playwright engine \(scenarios\[0\]\.engine\), which only Artillery runs: --generator artillery \(and 1 more such\)$/,
  ],
  [
    'a field no engine of the lab knows',
    'closed',
    { model: model({ unknown: [{ where: 'config.tls2', line: 4 }] }) },
    'LAB_ERR_SCRIPT_UNKNOWN_FIELD',
    /^the script has a field the lab's engines do not know: config\.tls2 \(line 4\); correct it/,
  ],
])('%s: %s refuses it, given %j, with %s', (what, name, ask, code, text) => {
  const err = refusal(GENERATORS[name], ask);
  expect(err).toMatchObject({ code, exitCode: 2 });
  expect(err.message).toMatch(text);
});

test('a feature of the model a generator does not run names the generators that do', () => {
  // The signal generator runs its own participants, none of a script's features.
  const err = refusal(GENERATORS.signal, { model: model({ features: ['cookies'] }) });
  expect(err).toMatchObject({ code: 'LAB_ERR_GENERATOR_FEATURE', exitCode: 2 });
  expect(err.message).toBe(
    "the scenario uses cookies (config.defaults.cookie, a request's cookie), which --generator signal does not run; --generator artillery, fast or closed does",
  );
});
