'use strict';

// The keep-alive engine against small servers of the test's own (127.0.0.1, port 0): kept
// connections reused, a server's `Connection: close` honoured with the requests behind it
// sent again, pipelining, time-outs, refusals, and requests written as node:http would.
const net = require('node:net');
const { listen } = require('../../../helper');
const { createEngine } = require('../../../../lab/generators/keepalive');

const GET = { method: 'GET', captures: null };
const CAPTURE = { method: 'GET', wantText: true };
const parts = (path = '/', extra = {}) => ({ path, headers: {}, body: null, fixed: true, ...extra });

// One request on `conn`, as a promise of { ok, res | code }.
const send = (engine, conn, step = GET, p = parts()) =>
  new Promise((resolve) => {
    engine.send(
      conn,
      step,
      p,
      performance.timeOrigin + performance.now(),
      (res) => resolve({ ok: true, res }),
      (code) => resolve({ ok: false, code }),
    );
  });

// A server that counts its connections.
async function counting(handler) {
  const srv = await listen(handler);
  srv.sockets = 0;
  srv.server.on('connection', () => (srv.sockets += 1));
  return srv;
}

test('one kept-alive connection carries request after request', async () => {
  const srv = await counting((req, res) => res.end(`you asked ${req.url}`));
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(srv.url));
    for (let i = 0; i < 20; i++) {
      const r = await send(engine, conn, CAPTURE, parts(`/n${i}`));
      expect(r).toMatchObject({ ok: true, res: { status: 200, text: `you asked /n${i}` } });
    }
    expect(srv.sockets).toBe(1);
    expect(engine.stats.opened).toBe(1);
  } finally {
    engine.close();
    await srv.close();
  }
});

test("a server's Connection: close is honoured: pipelined requests behind it go again on a new socket", async () => {
  let n = 0;
  const srv = await counting((req, res) => {
    n += 1;
    if (n % 3 === 0) res.setHeader('connection', 'close');
    res.end(String(n));
  });
  const engine = createEngine({ pipelining: 4, timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(srv.url));
    const all = await Promise.all([...Array(10)].map(() => send(engine, conn)));
    expect(all.every((r) => r.ok && r.res.status === 200)).toBe(true);
    expect(srv.sockets).toBeGreaterThanOrEqual(4);
    expect(engine.stats.opened).toBe(srv.sockets);
  } finally {
    engine.close();
    await srv.close();
  }
});

test('pipelining: N requests are written before the first answer', async () => {
  // A raw server that answers only once it has read three requests.
  const server = net.createServer((s) => {
    let got = '';
    s.on('data', (d) => {
      got += d;
      if ((got.match(/GET \//g) || []).length === 3)
        s.write('HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nA'.repeat(2) + 'HTTP/1.1 204 No\r\n\r\n');
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const engine = createEngine({ pipelining: 3, timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(`http://127.0.0.1:${server.address().port}`));
    expect(conn.hasRoom).toBe(true);
    const all = Promise.all([send(engine, conn), send(engine, conn), send(engine, conn)]);
    expect(conn.hasRoom).toBe(false);
    expect((await all).map((r) => r.res.status)).toEqual([200, 200, 204]);
  } finally {
    engine.close();
    await new Promise((r) => server.close(r));
  }
});

test('the pool opens a connection per concurrent request, then reuses them', async () => {
  const srv = await counting((req, res) => setTimeout(() => res.end('ok'), 30));
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    const url = new URL(srv.url);
    const first = await Promise.all([...Array(5)].map(() => send(engine, engine.pooled(url))));
    expect(first.every((r) => r.ok)).toBe(true);
    for (let i = 0; i < 10; i++) expect((await send(engine, engine.pooled(url))).ok).toBe(true);
    expect(srv.sockets).toBe(5);
  } finally {
    engine.close();
    await srv.close();
  }
});

test('a request with no answer fails ETIMEDOUT; a refused connection fails ECONNREFUSED', async () => {
  const srv = await listen(() => {}); // never answers
  const engine = createEngine({ timeoutMs: 300 });
  try {
    const started = Date.now();
    const r = await send(engine, engine.connection(new URL(srv.url)));
    expect(r).toEqual({ ok: false, code: 'ETIMEDOUT' });
    // The sweep runs every 50 ms here: well within 3 s on a busy 2-core machine.
    expect(Date.now() - started).toBeLessThan(3000);
  } finally {
    await srv.close();
  }
  const gone = new URL(srv.url); // closed above: nothing listens there now
  expect(await send(engine, engine.connection(gone))).toEqual({ ok: false, code: 'ECONNREFUSED' });
  engine.close();
});

test('a server that closes mid-answer fails the request ECONNRESET; the connection opens again', async () => {
  let n = 0;
  const server = net.createServer((s) =>
    s.on('data', () => {
      n += 1;
      if (n === 1) s.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nshort');
      else s.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    }),
  );
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(`http://127.0.0.1:${server.address().port}`));
    expect(await send(engine, conn)).toEqual({ ok: false, code: 'ECONNRESET' });
    expect(await send(engine, conn)).toMatchObject({ ok: true, res: { status: 200 } });
    expect(engine.stats.opened).toBe(2);
  } finally {
    engine.close();
    await new Promise((r) => server.close(r));
  }
});

test('requests are written as node:http writes them: method, body and its length, a Host of their own', async () => {
  const seen = [];
  const srv = await listen((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, host: req.headers.host, type: req.headers['content-type'], body });
      res.end();
    });
  });
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(srv.url));
    const post = parts('/cart?x=1', {
      headers: { 'content-type': 'application/json' },
      body: Buffer.from('{"id":1}'),
      fixed: false,
    });
    expect((await send(engine, conn, { method: 'POST', captures: null }, post)).ok).toBe(true);
    expect((await send(engine, conn, GET, parts('/', { headers: { host: 'shop.example' } }))).ok).toBe(true);
    expect(seen).toEqual([
      {
        method: 'POST',
        url: '/cart?x=1',
        host: new URL(srv.url).host,
        type: 'application/json',
        body: '{"id":1}',
      },
      { method: 'GET', url: '/', host: 'shop.example', type: undefined, body: '' },
    ]);
    // What node:http refuses is refused alike, and nothing is sent.
    expect(await send(engine, conn, GET, parts('/a b'))).toEqual({ ok: false, code: 'ERR_UNESCAPED_CHARACTERS' });
    expect(await send(engine, conn, GET, parts('/', { headers: { 'x-a': 'b\r\nx-evil: 1' } }))).toEqual({
      ok: false,
      code: 'ERR_INVALID_CHAR',
    });
    expect(seen).toHaveLength(2);
  } finally {
    engine.close();
    await srv.close();
  }
});

test('a closed engine fails what is in flight and refuses more (ECANCELED)', async () => {
  const srv = await listen(() => {});
  const engine = createEngine({ timeoutMs: 5000 });
  const conn = engine.connection(new URL(srv.url));
  const pending = send(engine, conn);
  await new Promise((r) => setTimeout(r, 50));
  engine.close();
  expect(await pending).toEqual({ ok: false, code: 'ECANCELED' });
  expect(await send(engine, conn)).toEqual({ ok: false, code: 'ECANCELED' });
  await srv.close();
});

// A server of raw bytes: each request gets `answer` (a function of the request's number).
async function raw(answer) {
  const server = net.createServer((socket) => {
    let n = 0;
    socket.on('data', (d) => {
      const requests = d.toString('latin1').split('\r\n\r\n').length - 1;
      for (let i = 0; i < requests; i++) socket.write(answer(++n, socket));
    });
    socket.on('error', () => {});
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((r) => server.close(r)),
  };
}

test('a valid Connection: close answer followed by stray bytes: every request still answered', async () => {
  // (Before, the old socket's parse error dropped the new one: half of all requests EPARSE.)
  const srv = await raw(() => 'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nokSTRAY BYTES\r\n');
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    const conn = engine.connection(new URL(srv.url));
    const results = [];
    for (let i = 0; i < 200; i++) results.push(await send(engine, conn));
    expect(results.filter((r) => !r.ok)).toEqual([]);
  } finally {
    engine.close();
    await srv.close();
  }
});

test('a server that answers with an SSH banner fails EPARSE at once, not at the time-out', async () => {
  const sockets = new Set();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.write('SSH-2.0-OpenSSH_9.2p1 Debian-2\r\n');
    socket.on('error', () => {});
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const engine = createEngine({ timeoutMs: 10000 });
  try {
    const t0 = Date.now();
    const r = await send(engine, engine.connection(new URL(`http://127.0.0.1:${server.address().port}`)));
    expect(r).toEqual({ ok: false, code: 'EPARSE' });
    // (Well under the 10 s time-out: a tolerance for a busy machine.)
    expect(Date.now() - t0).toBeLessThan(5000);
  } finally {
    engine.close();
    for (const sk of sockets) sk.destroy();
    await new Promise((r) => server.close(r));
  }
});

test('a one-shot connection (a new connection per request) asks Connection: close; the server ends it after its answer', async () => {
  const seen = [];
  const srv = await counting((req, res) => {
    seen.push(req.headers.connection);
    res.end('ok');
  });
  const closes = [];
  srv.server.on('connection', (s) => s.on('close', () => closes.push(Date.now())));
  const engine = createEngine({ timeoutMs: 5000 });
  try {
    for (let i = 0; i < 5; i++) {
      const conn = engine.connection(new URL(srv.url), null, { oneShot: true });
      expect(await send(engine, conn, CAPTURE)).toMatchObject({ ok: true, res: { status: 200, text: 'ok' } });
      engine.release(conn);
    }
    expect(seen).toEqual(Array(5).fill('close'));
    expect(srv.sockets).toBe(5);
    // Kept-alive connections' requests never say it (node:http's agent with keepAlive neither).
    const kept = engine.connection(new URL(srv.url));
    await send(engine, kept, CAPTURE);
    expect(seen.at(-1)).toBeUndefined();
  } finally {
    engine.close();
    await srv.close();
  }
});
