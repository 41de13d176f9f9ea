'use strict';

const { probeEnv, PRELOAD, quoted } = require('../../../lab/probe/env');

test("a service node's environment: the probe preloaded after the caller's own NODE_OPTIONS, where to send, which node", () => {
  expect(probeEnv({ node: 'replica-2', address: '127.0.0.1:9125' })).toEqual({
    NODE_OPTIONS: `--require ${quoted(PRELOAD)}`,
    LAB_PROBE: '127.0.0.1:9125',
    LAB_PROBE_NODE: 'replica-2',
  });
  const env = probeEnv({
    node: 'n',
    address: 'a',
    preload: '/app/probe/preload.js',
    before: ' --max-old-space-size=512 ',
  });
  expect(env.NODE_OPTIONS).toBe('--max-old-space-size=512 --require "/app/probe/preload.js"');
});

test('a path as one NODE_OPTIONS word: quoted, its quotes and backslashes escaped', () => {
  expect(quoted('/my checkout/probe.js')).toBe('"/my checkout/probe.js"');
  expect(quoted('/a"b\\c')).toBe('"/a\\"b\\\\c"');
});
