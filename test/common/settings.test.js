'use strict';

const parseSettings = require('../../common/settings');
const { LabError, labError } = require('../../common/errors');

describe('settings', () => {
  const schema = {
    n: { name: 'N', type: 'int', min: 1, max: 5, default: 2 },
    f: { name: 'F', type: 'number', min: 0, max: 1, default: 0.5 },
    e: { name: 'E', type: 'enum', values: ['a', 'b'], default: 'a' },
    b: { name: 'B', type: 'bool', default: false },
    u: { name: 'U', type: 'url', default: 'http://x' },
    d: { name: 'D', type: 'int', min: 0, max: 9, default: (s) => s.n * 2 },
  };

  test('defaults, derived defaults, parsing and freezing', () => {
    expect(parseSettings(schema, {})).toEqual({ n: 2, f: 0.5, e: 'a', b: false, u: 'http://x', d: 4 });
    const s = parseSettings(schema, { N: '3', F: '0.25', E: 'b', B: 'yes', U: 'http://h:1/' });
    expect(s).toEqual({ n: 3, f: 0.25, e: 'b', b: true, u: 'http://h:1', d: 6 });
    expect(Object.isFrozen(s)).toBe(true);
  });

  test.each([
    [{ N: '2.5' }, 'N'],
    [{ N: '9' }, 'N'],
    [{ F: 'x' }, 'F'],
    [{ E: 'c' }, 'E'],
    [{ B: 'maybe' }, 'B'],
    [{ U: 'nope' }, 'U'],
  ])('%j is refused, naming %s', (source, name) => {
    try {
      parseSettings(schema, source);
      throw new Error('accepted');
    } catch (err) {
      expect(err).toBeInstanceOf(LabError);
      expect(err.code).toBe('LAB_ERR_CONFIG');
      expect(err.setting).toBe(name);
      expect(err.message).toContain(`${name}=`);
    }
  });

  test('errors carry a code and an exit code', () => {
    const e = labError('LAB_ERR_UNKNOWN_NAME', 'deployment', 'singel', ['single', 'multi'], 'single');
    expect(e.exitCode).toBe(2);
    expect(e.message).toBe('unknown deployment "singel" (did you mean "single"?); valid: single, multi');
    expect(() => labError('NOPE')).toThrow(/unknown error code/);
  });
});
