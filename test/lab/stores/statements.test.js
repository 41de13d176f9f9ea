'use strict';

const { parseResp } = require('../../../lab/stores/statements');

// Redis's replies as the lab reads them (SLOWLOG GET is an array of arrays): whole, or null
// when the bytes are not all there yet.
test("Redis's protocol: strings, integers, errors, nested arrays, and a reply cut short", () => {
  const b = (s) => Buffer.from(s);
  expect(parseResp(b('+OK\r\n'), 0).value).toBe('OK');
  expect(parseResp(b(':42\r\n'), 0).value).toBe(42);
  expect(parseResp(b('$5\r\nhello\r\n'), 0).value).toBe('hello');
  expect(parseResp(b('-ERR no\r\n'), 0).value).toBeInstanceOf(Error);
  const slow = '*1\r\n*4\r\n:7\r\n:1700000000\r\n:12000\r\n*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n';
  expect(parseResp(b(slow), 0).value).toEqual([[7, 1700000000, 12000, ['GET', 'key']]]);
  expect(parseResp(b(slow.slice(0, -4)), 0)).toBeNull();
  expect(parseResp(b('$5\r\nhel'), 0)).toBeNull();
});
