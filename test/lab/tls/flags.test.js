'use strict';

const { tlsOf } = require('../../../lab/tls/flags');
const { codeOf } = require('../../helper');

// --tls and what goes with it, checked once before anything starts (lab/tls/flags.js).
test('off, on, HTTP/2; refused for a kind that cannot terminate TLS, another runtime, a lone cert', () => {
  expect(tlsOf({})).toBeNull();
  expect(tlsOf({ tls: true })).toEqual({ http2: false });
  expect(tlsOf({ http2: true }, { balancer: 'caddy' })).toEqual({ http2: true });
  for (const balancer of ['nginx-l4', 'haproxy-l4', 'mesh', 'none'])
    expect(codeOf(() => tlsOf({ tls: true }, { balancer }))).toBe('LAB_ERR_TLS');
  expect(() => tlsOf({ tls: true }, { balancer: 'haproxy-l4' })).toThrow(
    /passes the bytes through and cannot terminate TLS/,
  );
  expect(() => tlsOf({ tls: true }, { runtime: 'compose' })).toThrow(/TLS runs on the local runtime/);
  // A lone --tls-cert, --tls-key or --tls-ca: refused by the command's flag schema.
  const scenario = require('../../../lab/commands/scenario');
  const planned = (...flags) => codeOf(() => scenario.plan(['ping', 'load', 'single', ...flags]));
  expect(planned('--tls-cert', '/x.crt')).toBe('LAB_ERR_FLAG_NEEDS');
  expect(planned('--tls', '--tls-ca', '/ca.crt')).toBe('LAB_ERR_FLAG_NEEDS');
  expect(planned('--tls-resume', 'off', '--generator', 'fast')).toBe('LAB_ERR_FLAG_NEEDS');
  expect(planned('--streams', '4', '--generator', 'closed', '--tls')).toBe('LAB_ERR_FLAG_NEEDS');
  expect(() => tlsOf({ 'tls-cert': '/no/x.crt', 'tls-key': '/no/x.key' })).toThrow(
    /--tls-cert \/no\/x\.crt: no such file/,
  );
});
