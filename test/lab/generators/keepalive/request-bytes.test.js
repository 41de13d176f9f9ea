'use strict';

const { requestBytes } = require('../../../../lab/generators/keepalive/request-bytes');

const text = (b) => b.toString('latin1');

test('a GET: its line, the target as Host, its headers, a blank line; nothing else', () => {
  const b = requestBytes('GET', { path: '/ping', headers: { accept: 'text/plain' } }, '127.0.0.1:8080');
  expect(text(b)).toBe('GET /ping HTTP/1.1\r\nhost: 127.0.0.1:8080\r\naccept: text/plain\r\n\r\n');
});

test("a body says its length (never chunked); a request's own Host wins; connection is the engine's", () => {
  const body = Buffer.from('{"a":1}');
  const b = requestBytes(
    'POST',
    {
      path: '/items',
      headers: { host: 'shop.test', connection: 'keep-alive', 'content-type': 'application/json' },
      body,
    },
    '127.0.0.1:8080',
  );
  expect(text(b)).toBe(
    'POST /items HTTP/1.1\r\nhost: shop.test\r\ncontent-type: application/json\r\ncontent-length: 7\r\n\r\n{"a":1}',
  );
});

test('a one-request connection asks the server to close it', () => {
  const b = requestBytes('GET', { path: '/' }, 'h:1', true);
  expect(text(b)).toBe('GET / HTTP/1.1\r\nhost: h:1\r\nconnection: close\r\n\r\n');
});

test("a step's fixed parts become bytes once per host (and per close); a templated one's each time", () => {
  const fixed = { path: '/ping', fixed: true };
  expect(requestBytes('GET', fixed, 'a:1')).toBe(requestBytes('GET', fixed, 'a:1'));
  expect(requestBytes('GET', fixed, 'a:1')).not.toBe(requestBytes('GET', fixed, 'b:1'));
  expect(requestBytes('GET', fixed, 'a:1')).not.toBe(requestBytes('GET', fixed, 'a:1', true));
  const templated = { path: '/ping' };
  expect(requestBytes('GET', templated, 'a:1')).not.toBe(requestBytes('GET', templated, 'a:1'));
});

test('what node:http refuses is refused alike, with its codes: nothing to send', () => {
  expect(() => requestBytes('GET', { path: '/a b' }, 'h')).toThrow(
    expect.objectContaining({ code: 'ERR_UNESCAPED_CHARACTERS' }),
  );
  expect(() => requestBytes('GET', { path: '/', headers: { x: 'a\r\nevil: 1' } }, 'h')).toThrow(
    expect.objectContaining({ code: 'ERR_INVALID_CHAR' }),
  );
});
