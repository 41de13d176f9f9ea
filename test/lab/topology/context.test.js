'use strict';

const path = require('node:path');
const { CONTEXT, STATE, contextOf } = require('../../../lab/topology/context');
const { ROOT } = require('../../../lab/paths');

test('the deployment context: each flag with its environment variable and default', () => {
  expect(CONTEXT['port-base']).toMatchObject({ env: 'LAB_PORT_BASE' });
  expect(CONTEXT.host).toMatchObject({ env: 'LAB_HOST', default: '127.0.0.1' });
  expect(CONTEXT['state-dir']).toMatchObject({ env: 'LAB_STATE_DIR', default: path.join(ROOT, '.lab') });
  expect(Object.keys(STATE)).toEqual(['state-dir']);
});

test('parsed flags as a context', () => {
  expect(contextOf({ 'port-base': 20000, host: '10.0.0.1', 'state-dir': '/tmp/s' })).toEqual({
    portBase: 20000,
    host: '10.0.0.1',
    stateDir: '/tmp/s',
  });
});
