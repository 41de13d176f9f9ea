'use strict';

const net = require('node:net');
const createHub = require('../../hub/server');
const hubClient = require('../../service/signal/hub-client');
const localRegistry = require('../../service/signal/local-registry');

const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));
const tick = (ms = 50) => new Promise((r) => setTimeout(r, ms));

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
      await tick();
      expect(got.p1).toEqual([{ type: 'peer-joined', id: 'p2' }]);
      expect(await b.send('r', 'p2', 'p1', { type: 'offer', data: { sdp: 1 } })).toBe(true);
      expect(await a.send('r', 'p1', 'p2', { type: 'answer', data: 2 })).toBe(true);
      await tick();
      expect(got.p1[1]).toEqual({ type: 'offer', data: { sdp: 1 }, from: 'p2' });
      expect(got.p2).toEqual([{ type: 'answer', data: 2, from: 'p1' }]);
      // A peer of another room is not reachable from this one.
      await a.join('other', 'p3', (m) => got.p3.push(m));
      expect(await b.send('r', 'p2', 'p3', { type: 'offer' })).toBe(false);
      b.leave('r', 'p2');
      await tick();
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
  await tick(100);
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
