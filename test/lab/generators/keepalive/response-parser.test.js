'use strict';

// The keep-alive engine's response parser, fed by hand: every framing HTTP/1.1 has, split at
// every byte, several responses in one read, and what is not HTTP refused.
const { ResponseParser, upstreamTime } = require('../../../../lab/generators/keepalive/response-parser');

function parse(bytes, requests, { splitAt = null } = {}) {
  const out = [];
  const p = new ResponseParser((res) => out.push(res));
  for (const r of requests) p.expect(r);
  const buf = Buffer.from(bytes, 'latin1');
  if (splitAt === null) p.feed(buf);
  else {
    p.feed(buf.subarray(0, splitAt));
    p.feed(buf.subarray(splitAt));
  }
  return { out, p };
}
const GET = { head: false, wantText: true };

const LENGTH = 'HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Lab-Upstream: r2\r\nX-Lab-Upstream-S: 0.003\r\n\r\nhello';
const CHUNKED =
  'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;ext=1\r\nde\r\n0\r\nX-Trailer: t\r\n\r\n';

test('a Content-Length body, its status and the entry headers', () => {
  const { out } = parse(LENGTH, [GET]);
  expect(out).toEqual([{ status: 200, close: false, upstream: 'r2', upstreamMs: 3, text: 'hello', headers: {} }]);
});

test("the headers a script's semantics need: always a redirect's, cookies and the body's type; all when asked", () => {
  const head =
    'HTTP/1.1 302 Found\r\nLocation: /next\r\nSet-Cookie: a=1\r\nSet-Cookie: b=2; Path=/\r\nContent-Type: text/plain\r\nX-Other: y\r\nContent-Length: 0\r\n\r\n';
  expect(parse(head, [GET]).out[0].headers).toEqual({
    location: '/next',
    'set-cookie': ['a=1', 'b=2; Path=/'],
    'content-type': 'text/plain',
  });
  expect(parse(head, [{ ...GET, wantHeaders: true }]).out[0].headers).toMatchObject({
    'x-other': 'y',
    'content-length': '0',
    location: '/next',
  });
});

test('a compressed body kept for a capture is decompressed, as Artillery reads it', () => {
  const zlib = require('node:zlib');
  const body = zlib.gzipSync(Buffer.from('{"id":7}'));
  const bytes = Buffer.concat([
    Buffer.from(`HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: ${body.length}\r\n\r\n`),
    body,
  ]);
  const out = [];
  const p = new ResponseParser((res) => out.push(res));
  p.expect(GET);
  p.feed(bytes);
  expect(out[0].text).toBe('{"id":7}');
});

test('a chunked body with extensions and trailers', () => {
  const { out } = parse(CHUNKED, [GET]);
  expect(out).toHaveLength(1);
  expect(out[0].status).toBe(201);
  expect(out[0].text).toBe('abcde');
});

test('split at every byte, the same responses come out', () => {
  const both = LENGTH + CHUNKED;
  const whole = parse(both, [GET, GET]).out;
  for (let i = 1; i < both.length; i++) {
    expect(parse(both, [GET, GET], { splitAt: i }).out).toEqual(whole);
  }
});

test('pipelined responses in one read answer their requests in order', () => {
  const three =
    'HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nA'.repeat(2) + 'HTTP/1.1 503 No\r\ncontent-length: 0\r\n\r\n';
  const { out, p } = parse(three, [GET, GET, { head: false, wantText: false }]);
  expect(out.map((r) => [r.status, r.text])).toEqual([
    [200, 'A'],
    [200, 'A'],
    [503, null],
  ]);
  expect(p.waiting).toBe(0);
});

test('1xx interim answers are skipped; HEAD, 204 and 304 have no body', () => {
  const bytes =
    'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n' + // a HEAD: no body follows
    'HTTP/1.1 204 No Content\r\n\r\n' +
    'HTTP/1.1 304 Not Modified\r\nContent-Length: 99\r\n\r\n' +
    'HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok';
  const { out } = parse(bytes, [{ head: true, wantText: false }, GET, GET, GET]);
  expect(out.map((r) => r.status)).toEqual([200, 204, 304, 200]);
  expect(out[3].text).toBe('ok');
});

test('Connection: close, HTTP/1.0 and a body up to the close', () => {
  expect(parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n', [GET]).out[0].close).toBe(true);
  expect(parse('HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n', [GET]).out[0].close).toBe(true);
  expect(parse('HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 0\r\n\r\n', [GET]).out[0].close).toBe(
    false,
  );
  const { out, p } = parse('HTTP/1.1 200 OK\r\n\r\nto the end', [GET]);
  expect(out).toHaveLength(0);
  expect(p.end()).toBe(false); // the close ends the body: whole
  expect(out[0]).toMatchObject({ status: 200, close: true, text: 'to the end' });
});

test('a response cut short by the close is said to be', () => {
  const { p } = parse('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc', [GET]);
  expect(p.end()).toBe(true);
  expect(parse('HTTP/1.1 200 OK\r\nConte', [GET]).p.end()).toBe(true);
});

test('what is not HTTP/1.x, or not asked for, is a parse error (EPARSE)', () => {
  const bad = [
    ['SSH-2.0-OpenSSH\r\n\r\n', [GET]],
    ['HTTP/1.1 abc\r\n\r\n', [GET]],
    ['HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n', []],
    ['HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n', [GET]],
    ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n', [GET]],
  ];
  for (const [bytes, reqs] of bad) {
    expect(() => parse(bytes, reqs)).toThrow(expect.objectContaining({ code: 'EPARSE' }));
  }
  // A head that never ends is refused before it fills the memory.
  const p = new ResponseParser(() => {});
  p.expect(GET);
  p.feed(Buffer.from('HTTP/1.1 200 OK\r\n'));
  expect(() => {
    for (let i = 0; i < 100; i++) p.feed(Buffer.from(`X-Filler-${i}: ${'y'.repeat(1000)}\r\n`));
  }).toThrow(expect.objectContaining({ code: 'EPARSE', message: expect.stringMatching(/over/) }));
});

test('a banner that is not HTTP, with no blank line to wait for, is refused from its first bytes', () => {
  expect(() => parse('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n', [GET])).toThrow(expect.objectContaining({ code: 'EPARSE' }));
  expect(() => parse('SSH', [GET])).toThrow(expect.objectContaining({ code: 'EPARSE' }));
  // The start of a real one, split anywhere, is waited for.
  expect(() => parse('HTT', [GET])).not.toThrow();
});

test('after an answer that closes the connection, stray bytes are not read as another', () => {
  const { out } = parse('HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokGARBAGE\r\n\r\n', [
    GET,
    GET,
  ]);
  expect(out).toEqual([expect.objectContaining({ status: 200, close: true, text: 'ok' })]);
});

test('a body kept for a capture is bounded: an endless chunked one fails EBODYSIZE', () => {
  const { LIMITS } = require('../../../../lab/scenario/limits');
  const p = new ResponseParser(() => {});
  p.expect(GET);
  p.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'));
  const chunk = Buffer.concat([Buffer.from('100000\r\n'), Buffer.alloc(0x100000, 120), Buffer.from('\r\n')]);
  expect(() => {
    for (let i = 0; i <= LIMITS.capturedBodyBytes / 0x100000; i++) p.feed(chunk);
  }).toThrow(expect.objectContaining({ code: 'EBODYSIZE' }));
  // Without a capture, nothing is kept: the same body streams through.
  const q = new ResponseParser(() => {});
  q.expect({ head: false, wantText: false });
  q.feed(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n'));
  for (let i = 0; i <= LIMITS.capturedBodyBytes / 0x100000; i++) q.feed(chunk);
});

test('upstream times: ms as given, nginx seconds converted, the last of a retry', () => {
  expect(upstreamTime('12.5', null)).toBe(12.5);
  expect(upstreamTime(null, '0.002, 0.011')).toBe(11);
  expect(upstreamTime(null, '-')).toBeNull();
  expect(upstreamTime(null, null)).toBeNull();
});
