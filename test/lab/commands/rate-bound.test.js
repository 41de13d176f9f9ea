'use strict';

// One bound for a rate, whichever command's flag takes it (issue 85): a search or a choice once
// took 1,000,000/s or 10,000,000/s and was refused only by the scenario it started, minutes in.
const { LIMITS, RATE } = require('../../../lab/scenario/limits');

const COMMANDS = {
  scenario: [require('../../../lab/commands/scenario/plan').COMMAND, ['ping', 'load', 'single'], ['rate']],
  capacity: [require('../../../lab/capacity/plan').COMMAND, ['/x'], ['start', 'max-rate', 'min-rate', 'need']],
  choose: [require('../../../lab/commands/choose/plan').COMMAND, ['/x'], ['rate', 'start', 'min-rate', 'max-rate']],
  study: [require('../../../lab/commands/study/plan').COMMAND, ['course'], ['max-rate']],
};
const codeOf = (fn) => {
  try {
    fn();
    return null;
  } catch (err) {
    return err.code;
  }
};

test('every rate flag of every command takes up to the one bound a phase may ask, and refuses past it', () => {
  expect(RATE.max).toBe(LIMITS.arrivalRate);
  const seen = [];
  for (const [name, [command, words, flags]] of Object.entries(COMMANDS)) {
    for (const f of flags) {
      const given = (v) => () => command.parse([...words, `--${f}=${v}`]);
      seen.push([name, f, codeOf(given(LIMITS.arrivalRate)), codeOf(given(LIMITS.arrivalRate + 1))]);
    }
  }
  expect(seen).toEqual(seen.map(([name, f]) => [name, f, null, 'LAB_ERR_INVALID_VALUE']));
});
