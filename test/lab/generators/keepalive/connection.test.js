'use strict';

// One kept-alive connection (lab/generators/keepalive/connection.js) and a server that closes
// idle connections: a socket idle past the connection's limit is not written on again. A
// server of the test's own times idle sockets out after 150 ms; this thread is then held busy
// past it (a capture parsing a page on a loaded machine), so the server's close is read only
// after the next request was written: on the dead socket, that request failed with ECONNRESET
// though the server never received it (a conformance run of checks.yml, beside other files).
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

// The server in a process of its own (held in this one, its time-out would wait too): it
// prints its port, and each path it receives on a line of its own.
async function serverClosingIdle(ms) {
  const { spawn } = require('node:child_process');
  const code = `const s = require('node:http').createServer((q, a) => { console.log(q.url); a.end('ok'); });
    s.keepAliveTimeout = ${ms}; let n = 0; s.on('connection', () => console.log('#' + ++n));
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  while (!out.includes('\n')) await new Promise((r) => setTimeout(r, 20));
  const lines = () => out.trim().split('\n').slice(1);
  return {
    url: `http://127.0.0.1:${out.split('\n')[0]}`,
    got: () => lines().filter((l) => l.startsWith('/')),
    sockets: () => lines().filter((l) => l.startsWith('#')).length,
    stop: () => new Promise((r) => (child.exitCode === null ? child.on('exit', r).kill() : r())),
  };
}

test('a socket idle past the limit is not reused: the next request goes on a new one and is answered', async () => {
  const srv = await serverClosingIdle(150);
  const stats = { opened: 0 };
  const conn = new Connection({ url: new URL(srv.url), stats, idleMs: 100 });
  try {
    expect(await get(conn, '/first')).toEqual({ ok: true, status: 200 });
    // Its answer read, the thread is busy past the server's time-out (Node's server closed an
    // idle socket of keepAliveTimeout 150 ms after about 1.2 s here), then writes at once.
    await new Promise((r) => setImmediate(r));
    hold(2500);
    expect(await get(conn, '/second')).toEqual({ ok: true, status: 200 });
    await new Promise((r) => setTimeout(r, 100));
    expect([srv.got(), stats.opened, srv.sockets()]).toEqual([['/first', '/second'], 2, 2]);
  } finally {
    conn.close();
    await srv.stop();
  }
});

test('a socket used again within the limit is kept: one connection for both', async () => {
  // (Limits far from the 50 ms between the requests, however late this thread runs.)
  const srv = await serverClosingIdle(60000);
  const stats = { opened: 0 };
  const conn = new Connection({ url: new URL(srv.url), stats, idleMs: 30000 });
  try {
    expect(await get(conn, '/first')).toEqual({ ok: true, status: 200 });
    await new Promise((r) => setTimeout(r, 50));
    expect(await get(conn, '/second')).toEqual({ ok: true, status: 200 });
    await new Promise((r) => setTimeout(r, 100));
    expect([srv.got(), stats.opened, srv.sockets()]).toEqual([['/first', '/second'], 1, 1]);
  } finally {
    conn.close();
    await srv.stop();
  }
});

test("the default limit is under Node's own server's keep-alive time-out (5 s)", () => {
  expect(IDLE_REUSE_MS).toBeLessThan(require('node:http').createServer().keepAliveTimeout);
  expect(IDLE_REUSE_MS).toBeGreaterThanOrEqual(1000);
});
