'use strict';

const { pick, suggest } = require('../../lab/names');

describe('names', () => {
  test('suggests near misses only', () => {
    expect(suggest('singel', ['single', 'multi'])).toBe('single');
    expect(suggest('xyz', ['single', 'multi'])).toBeNull();
    expect(pick('deployment', 'multi', { multi: 3 })).toBe(3);
    expect(() => pick('scenario', 'lod', ['load', 'spikes'])).toThrow(/did you mean "load"/);
  });
});
