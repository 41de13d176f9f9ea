'use strict';

const net = require('node:net');
const createHub = require('../../hub/server');
const hubClient = require('../../service/signal/hub-client');
const localRegistry = require('../../service/signal/local-registry');
const { until } = require('../helper');

const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));

// The same contract for the in-process registry and for processes sharing rooms through the
// hub: two "processes" (two hub clients) hold the two ends of one room.
describe.each([
  [
    'local registry (one process)',
    async () => {
      const r = localRegistry();
      return { a: r, b: r, close: async () => {} };
    },
  ],
  [
    'hub (two processes)',
    async () => {
      const { server } = createHub();
      const port = await listen(server);
      const a = hubClient(`127.0.0.1:${port}`);
      const b = hubClient(`127.0.0.1:${port}`);
      return {
        a,
        b,
        server,
        close: async () => {
          a.close();
          b.close();
          await new Promise((r) => server.close(r));
        },
      };
    },
  ],
])('rooms: %s', (name, make) => {
  test('join names the peers there; the others hear of it; relay reaches one peer; leave is told', async () => {
    const { a, b, close } = await make();
    try {
      const got = { p1: [], p2: [], p3: [] };
      expect(await a.join('r', 'p1', (m) => got.p1.push(m))).toEqual([]);
      expect(await b.join('r', 'p2', (m) => got.p2.push(m))).toEqual(['p1']);
      await until(() => got.p1.length > 0);
      expect(got.p1).toEqual([{ type: 'peer-joined', id: 'p2' }]);
      expect(await b.send('r', 'p2', 'p1', { type: 'offer', data: { sdp: 1 } })).toBe(true);
      expect(await a.send('r', 'p1', 'p2', { type: 'answer', data: 2 })).toBe(true);
      await until(() => got.p1.length > 1 && got.p2.length > 0);
      expect(got.p1[1]).toEqual({ type: 'offer', data: { sdp: 1 }, from: 'p2' });
      expect(got.p2).toEqual([{ type: 'answer', data: 2, from: 'p1' }]);
      // A peer of another room is not reachable from this one.
      await a.join('other', 'p3', (m) => got.p3.push(m));
      expect(await b.send('r', 'p2', 'p3', { type: 'offer' })).toBe(false);
      b.leave('r', 'p2');
      await until(() => got.p1.at(-1)?.type === 'peer-left');
      expect(got.p1.at(-1)).toEqual({ type: 'peer-left', id: 'p2' });
      expect(got.p3).toEqual([]);
    } finally {
      await close();
    }
  });

  test('a room id is the same for `size` consecutive callers, whichever process asks', async () => {
    const { a, b, close } = await make();
    try {
      const ids = [await a.roomId(3), await b.roomId(3), await a.roomId(3), await b.roomId(3)];
      expect(ids[0]).toBe(ids[1]);
      expect(ids[1]).toBe(ids[2]);
      expect(ids[3]).not.toBe(ids[0]);
    } finally {
      await close();
    }
  });
});

test('a process that goes away: its peers leave their rooms', async () => {
  const { server } = createHub();
  const port = await listen(server);
  const a = hubClient(`127.0.0.1:${port}`);
  const b = hubClient(`127.0.0.1:${port}`);
  const seen = [];
  await a.join('r', 'p1', (m) => seen.push(m));
  await b.join('r', 'p2', () => {});
  b.close();
  // (The hub hears of the closed connection, then tells p1: waited for, not timed.)
  await until(() => seen.at(-1)?.type === 'peer-left');
  expect(seen.at(-1)).toEqual({ type: 'peer-left', id: 'p2' });
  // Garbage on the wire is answered, not fatal.
  const raw = net.connect(port, '127.0.0.1');
  const answer = await new Promise((r) => {
    raw.on('data', (d) => r(String(d)));
    raw.write('nonsense\n');
  });
  expect(JSON.parse(answer)).toMatchObject({ op: 'error' });
  raw.destroy();
  a.close();
  await new Promise((r) => server.close(r));
});

// What reaches the hub's port from anything else than a service process: each bad line is
// answered and closes its own connection; the hub and the rooms of the others go on.
// (`null` crashed the hub once, and with it every replica.)
describe('the hub refuses bad input one connection at a time', () => {
  // Sends raw bytes on a connection of its own; resolves what came back and whether the hub
  // closed it.
  const raw = (port, bytes) =>
    new Promise((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      let got = '';
      s.on('data', (d) => (got += d));
      s.on('error', () => {});
      s.on('close', () => resolve({ got, closed: true }));
      s.on('connect', () => s.write(bytes));
      setTimeout(() => {
        s.destroy();
        resolve({ got, closed: false });
      }, 1500).unref();
    });

  let hub;
  let port;
  let good;
  const seen = [];
  beforeAll(async () => {
    hub = createHub({ token: 'secret' });
    port = await listen(hub.server);
    good = hubClient(`127.0.0.1:${port}`, { token: 'secret' });
    await good.join('r', 'p1', (m) => seen.push(m));
  });
  afterAll(async () => {
    good.close();
    await hub.stop();
  });

  const hello = '{"op":"hello","token":"secret"}\n';
  test.each([
    ['null', `${hello}null\n`],
    ['a list', `${hello}[1,2]\n`],
    ['not JSON', `${hello}nonsense\n`],
    ['an unknown op', `${hello}{"op":"explode"}\n`],
    ['missing fields', `${hello}{"op":"join","room":"r"}\n`],
    ['a field of the wrong kind', `${hello}{"op":"send","room":"r","from":"x","to":"p1","msg":"hi"}\n`],
    ['no greeting', '{"op":"room","size":2}\n'],
    ['the wrong token', '{"op":"hello","token":"guess"}\n{"op":"room","size":2}\n'],
    ['a line over 64 KiB without a newline', `${hello}${'x'.repeat(70 * 1024)}`],
  ])('%s: answered with an error, that connection closed', async (what, bytes) => {
    const r = await raw(port, bytes);
    expect(r.closed).toBe(true);
    expect(
      r.got
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l).op),
    ).toContain('error');
    // The others are unaffected: the room still relays.
    const b = hubClient(`127.0.0.1:${port}`, { token: 'secret' });
    try {
      expect(await b.join('r', `q-${seen.length}`, () => {})).toContain('p1');
      expect(good.connected()).toBe(true);
    } finally {
      b.close();
    }
  });
});

test('a service process outlives the hub: UNAVAILABLE during the gap, its rooms registered again after', async () => {
  const first = createHub({ token: 't' });
  const port = await listen(first.server);
  const opts = { token: 't', backoffMs: 50, maxBackoffMs: 200 };
  const a = hubClient(`127.0.0.1:${port}`, opts);
  const b = hubClient(`127.0.0.1:${port}`, opts);
  const lost = [];
  const back = [];
  a.onLost((e) => lost.push(e.code));
  a.onBack(() => back.push(1));
  const got = [];
  await a.join('r', 'p1', (m) => got.push(m));
  await b.join('r', 'p2', () => {});
  await first.stop();
  await until(() => lost.length > 0);
  expect(lost).toEqual(['HUB_UNAVAILABLE']);
  // During the gap: across processes fails fast, within the process still works.
  const t0 = Date.now();
  await expect(b.send('r', 'p2', 'p1', { type: 'offer' })).rejects.toMatchObject({ code: 'HUB_UNAVAILABLE' });
  await expect(a.roomId(2)).rejects.toMatchObject({ code: 'HUB_UNAVAILABLE' });
  // (Fast: well under the client's 5 s time-out it would otherwise wait out, with room for a
  // busy machine.)
  expect(Date.now() - t0).toBeLessThan(2000);
  // A new hub on the same port (pm2 restarting it): both come back and rebuild room r.
  const second = createHub({ token: 't' });
  await new Promise((r) => second.server.listen(port, '127.0.0.1', r));
  // (Each client registers its rooms again as it reconnects, on its own connection: a send of
  // b's may reach the new hub before a's registration, as it once did beside four CPU hogs.
  // Once both are registered, relays work.)
  await until(() => a.connected() && b.connected() && back.length >= 1 && second.registry.stats().peers === 2);
  expect(back.length).toBeGreaterThanOrEqual(1);
  expect(second.registry.stats()).toEqual({ rooms: 1, peers: 2 });
  expect(await b.send('r', 'p2', 'p1', { type: 'offer', data: 1 })).toBe(true);
  await until(() => got.at(-1)?.data === 1);
  expect(got.at(-1)).toEqual({ type: 'offer', data: 1, from: 'p2' });
  expect(second.registry.stats()).toEqual({ rooms: 1, peers: 2 });
  a.close();
  b.close();
  await second.stop();
});

test('node hub stops at once on SIGTERM, its clients connected', async () => {
  const { startProgram, freePort } = require('../helper');
  const port = await freePort();
  const hub = await startProgram('hub', [], {
    env: { PORT: String(port), HUB_TOKEN: 'x' },
    ready: (err) => err.includes('listening'),
  });
  const c = hubClient(`127.0.0.1:${port}`, { token: 'x' });
  await c.roomId(2);
  const t0 = Date.now();
  hub.child.kill('SIGTERM');
  const { code } = await hub.exited;
  expect(code).toBe(0);
  // pm2 waited its kill_timeout (5 s) for the hub before; well under that, even on a busy machine.
  expect(Date.now() - t0).toBeLessThan(2000);
  c.close();
});
