'use strict';

const net = require('node:net');
const { parseResp, resp } = require('../../../lab/stores/statements');

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

// The window's end reads the stores while the replicas' profiles are parsed: a loop held past
// the time-out, with Redis's answer already in, once read as "no answer". Here the test's own
// Redis answers, then holds the loop 3 times the time-out: the answer counts.
test('an answer that came while the loop was held past the time-out is read, not timed out', async () => {
  const hold = (ms) => {
    const end = Date.now() + ms;
    while (Date.now() < end);
  };
  const server = net.createServer((c) =>
    c.on('data', () => {
      c.write('+PONG\r\n');
      hold(600);
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  try {
    await expect(resp('127.0.0.1', server.address().port, ['PING'], 200)).resolves.toBe('PONG');
    // and no answer at all is still a time-out, said with its length
    const silent = net.createServer((c) => c.resume());
    await new Promise((r) => silent.listen(0, '127.0.0.1', r));
    await expect(resp('127.0.0.1', silent.address().port, ['PING'], 200)).rejects.toThrow(
      'Redis gave no answer in 0.2 s',
    );
    await new Promise((r) => silent.close(r));
  } finally {
    await new Promise((r) => server.close(r));
  }
});
