'use strict';

const parseDuration = require('../../../lab/terminal/duration');

describe('durations', () => {
  test.each([
    ['90', 90],
    ['90s', 90],
    ['10m', 600],
    ['1h30m', 5400],
    ['1m30s', 90],
  ])('%s is %i s', (text, s) => expect(parseDuration(text)).toBe(s));
  test.each(['', 'ten', '5 minutes', '0m'])('"%s" is refused', (text) =>
    expect(() => parseDuration(text)).toThrow(/--duration/),
  );
});
