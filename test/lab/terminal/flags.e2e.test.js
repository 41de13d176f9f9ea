'use strict';

const { codeOf } = require('../../helper');
const { defineCommand, flag } = require('../../../lab/terminal/flags');
const { CONTEXT } = require('../../../lab/topology/context');

const cmd = defineCommand({
  usage: 'usage: x <a>',
  positionals: { names: ['a'] },
  flags: {
    ...CONTEXT,
    n: flag.int(1, 5),
    f: flag.factor(),
    d: flag.duration(),
    h2: flag.host(),
    u: flag.url(),
    e: flag.enum(['red', 'green'], 'colour'),
    b: flag.bool(),
  },
});

describe('flag schema', () => {
  test('values are parsed, typed, frozen; context flags fall back on the environment', () => {
    const r = cmd.parse(['x', '--n', '3', '--f', '0.5', '--d', '1m30s', '--u', 'https://h/', '--b'], {
      LAB_PORT_BASE: '9000',
    });
    expect(r.positionals).toEqual(['x']);
    expect(r.values).toMatchObject({ n: 3, f: 0.5, d: 90, u: 'https://h', b: true, 'port-base': 9000 });
    expect(r.values.host).toBe('127.0.0.1');
    expect(Object.isFrozen(r.values)).toBe(true);
    expect(r.given.has('n')).toBe(true);
    expect(r.given.has('e')).toBe(false);
  });

  test.each([
    [['x', '--n', '6'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--n', '2.5'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--f', '0'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--d', '0'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--d', '25h'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--h2', 'a b'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--h2', '-bad-.example'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--u', 'javascript:alert(1)'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--e', 'gren'], 'LAB_ERR_UNKNOWN_NAME'],
    [['x', '--port-base', '80'], 'LAB_ERR_INVALID_VALUE'],
    [['x', '--zzz'], 'LAB_ERR_UNKNOWN_FLAG'],
    [['x', 'y'], 'LAB_ERR_UNEXPECTED_ARG'],
    [[], 'LAB_ERR_MISSING_ARG'],
    [['x', '--b=yes'], 'LAB_ERR_FLAG_VALUE'],
  ])('%j is refused with %s', (argv, code) => {
    expect(codeOf(() => cmd.parse(argv, {}))).toBe(code);
  });

  test('a bad environment value is named as the variable', () => {
    try {
      cmd.parse(['x'], { LAB_HOST: 'not a host' });
      throw new Error('accepted');
    } catch (err) {
      expect(err.code).toBe('LAB_ERR_INVALID_VALUE');
      expect(err.message).toContain('LAB_HOST');
    }
  });

  test('hosts: IPs and DNS names pass', () => {
    for (const h of ['127.0.0.1', '::1', 'localhost', 'node-1.lab.example']) {
      expect(cmd.parse(['x', '--h2', h], {}).values.h2).toBe(h);
    }
  });

  test('--help short-circuits the checks', () => {
    expect(cmd.parse(['--help'], {}).help).toBe(true);
  });
});

// An unknown flag printed Node's advice ("place it at the end of the command after '--'",
// with an unbalanced quote, wrong under npm run) and 25 lines of usage.
test('an unknown or misused flag: one line naming it, the nearest flag and where the help is; exit 2', async () => {
  const { lab } = require('../../helper');
  const unknown = await lab(['scenario', 'ping', 'load', 'single', '--targt', 'http://x']);
  expect(unknown.code).toBe(2);
  expect(unknown.stderr).toBe(
    'lab: unknown option --targt; did you mean --target? (npm run scenario -- --help) [LAB_ERR_UNKNOWN_FLAG]\n',
  );
  const missing = await lab(['deploy', 'single', '--replicas']);
  expect([missing.code, missing.stderr]).toEqual([
    2,
    'lab: --replicas: needs a value (npm run deploy -- --help) [LAB_ERR_FLAG_VALUE]\n',
  ]);
  const far = await lab(['report', '--zzzzzz']);
  expect(far.stderr).toBe('lab: unknown option --zzzzzz (npm run report -- --help) [LAB_ERR_UNKNOWN_FLAG]\n');
});
