'use strict';

// One kept-alive connection (lab/generators/keepalive/connection.js) and a server that closes
// idle connections: a socket idle past the connection's limit is not written on again. A
// server of the test's own times idle sockets out after 150 ms; this thread is then held busy
// past it (a capture parsing a page on a loaded machine), so the server's close is read only
// after the next request was written: on the dead socket, that request failed with ECONNRESET
// though the server never received it (a conformance run of checks.yml, beside other files).
const { startProgram } = require('../../../helper');
const { Connection, IDLE_REUSE_MS } = require('../../../../lab/generators/keepalive/connection');
const { requestBytes } = require('../../../../lab/generators/keepalive/request-bytes');

const hold = (ms) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

// A request on `conn`, as a promise of { ok, status | code }.
const get = (conn, path) =>
  new Promise((resolve) => {
    conn.send({
      bytes: requestBytes('GET', { path, headers: {}, body: null, fixed: true }, conn.url.host, false),
      head: false,
      wantText: false,
      wantHeaders: false,
      sentAt: performance.timeOrigin + performance.now(),
      done: (res) => resolve({ ok: true, status: res.status }),
      fail: (code) => resolve({ ok: false, code }),
    });
  });

// The server in a process of its own (held in this one, its time-out would wait too), started
// and stopped by the tests' helper: it writes its port, then each path it receives and each
// connection ('#') on a line of its own (stderr, which the helper reads).
async function serverClosingIdle(ms) {
  const code = `const s = require('node:http').createServer((q, a) => { console.error(q.url); a.end('ok'); });
    s.keepAliveTimeout = ${ms}; s.on('connection', () => console.error('#'));
    s.listen(0, '127.0.0.1', () => console.error(s.address().port));`;
  const child = await startProgram('-e', [code], { ready: (err) => err.includes('\n') });
  const lines = () => child.output().stderr.trim().split('\n');
  return {
    url: `http://127.0.0.1:${lines()[0]}`,
    got: () => lines().filter((l) => l.startsWith('/')),
    sockets: () => lines().filter((l) => l === '#').length,
    stop: () => child.stop(),
  };
}

// Two requests on one Connection (idle limit `idleMs`) to a server closing idle sockets after
// `serverMs`, `between` run between them; what the server received, sockets opened and seen.
async function twoRequests({ serverMs, idleMs, between }) {
  const srv = await serverClosingIdle(serverMs);
  const stats = { opened: 0 };
  const conn = new Connection({ url: new URL(srv.url), stats, idleMs });
  try {
    expect(await get(conn, '/first')).toEqual({ ok: true, status: 200 });
    await between();
    expect(await get(conn, '/second')).toEqual({ ok: true, status: 200 });
    await new Promise((r) => setTimeout(r, 100));
    return [srv.got(), stats.opened, srv.sockets()];
  } finally {
    conn.close();
    await srv.stop();
  }
}

test('a socket idle past the limit is not reused: the next request goes on a new one and is answered', async () => {
  const seen = await twoRequests({
    serverMs: 150,
    idleMs: 100,
    // Its answer read, the thread is busy past the server's time-out (Node's server closed an
    // idle socket of keepAliveTimeout 150 ms after about 1.2 s here), then writes at once.
    between: async () => {
      await new Promise((r) => setImmediate(r));
      hold(2500);
    },
  });
  expect(seen).toEqual([['/first', '/second'], 2, 2]);
});

test('a socket used again within the limit is kept: one connection for both', async () => {
  // (Limits far from the 50 ms between the requests, however late this thread runs.)
  const seen = await twoRequests({
    serverMs: 60000,
    idleMs: 30000,
    between: () => new Promise((r) => setTimeout(r, 50)),
  });
  expect(seen).toEqual([['/first', '/second'], 1, 1]);
});

test("the default limit is under Node's own server's keep-alive time-out (5 s)", () => {
  expect(IDLE_REUSE_MS).toBeLessThan(require('node:http').createServer().keepAliveTimeout);
  expect(IDLE_REUSE_MS).toBeGreaterThanOrEqual(1000);
});
