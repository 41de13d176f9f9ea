'use strict';

const http = require('node:http');
const WebSocket = require('ws');
const attachSignaling = require('../../../service/signal/server');
const localRegistry = require('../../../service/signal/local-registry');
const { LIMITS } = require('../../../service/signal/protocol');

// A client that keeps what it receives and can wait for the next message of a type.
function client(url) {
  const ws = new WebSocket(url);
  const got = [];
  const waiters = [];
  ws.on('message', (d) => {
    const m = JSON.parse(String(d));
    got.push(m);
    for (const w of [...waiters]) if (w.type === m.type) waiters.splice(waiters.indexOf(w), 1) && w.resolve(m);
  });
  const closed = new Promise((r) => ws.on('close', (code) => r(code)));
  const next = (type) => {
    const seen = got.find((m) => m.type === type && !m.taken);
    if (seen) {
      seen.taken = true;
      return Promise.resolve(seen);
    }
    return new Promise((resolve) => waiters.push({ type, resolve: (m) => ((m.taken = true), resolve(m)) }));
  };
  const opened = new Promise((r, j) => {
    ws.once('open', r);
    ws.once('error', j);
  });
  return { ws, got, next, closed, opened, send: (m) => ws.send(typeof m === 'string' ? m : JSON.stringify(m)) };
}

async function serve(limits = LIMITS) {
  const counted = [];
  const metrics = {
    timing: (n, v) => counted.push([n, v]),
    increment: (n) => counted.push([n]),
    gauge: (n, v) => counted.push([n, v]),
  };
  const server = http.createServer((req, res) => res.end('x'));
  const signaling = attachSignaling(server, {
    registry: localRegistry(),
    metrics,
    identity: { instance: 'replica-1', worker: 1 },
    limits,
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const url = `ws://127.0.0.1:${server.address().port}/signal`;
  return {
    url,
    counted,
    signaling,
    close: () => {
      signaling.close();
      return new Promise((r) => server.close(r));
    },
  };
}

describe('signaling server (/signal)', () => {
  test('join, relay offer/answer/candidate to one peer, peer-left on close; metrics counted', async () => {
    const s = await serve();
    const a = client(s.url);
    const b = client(s.url);
    try {
      await Promise.all([a.opened, b.opened]);
      a.send({ type: 'join', room: 'r1' });
      const ja = await a.next('joined');
      expect(ja.peers).toEqual([]);
      b.send({ type: 'join', room: 'r1' });
      const jb = await b.next('joined');
      expect(jb.peers).toEqual([ja.id]);
      expect(await a.next('peer-joined')).toMatchObject({ id: jb.id });
      b.send({ type: 'offer', to: ja.id, data: { sdp: 'o' } });
      expect(await a.next('offer')).toEqual({ type: 'offer', from: jb.id, data: { sdp: 'o' }, taken: true });
      a.send({ type: 'answer', to: jb.id, data: { sdp: 'a' } });
      expect(await b.next('answer')).toMatchObject({ from: ja.id, data: { sdp: 'a' } });
      a.send({ type: 'candidate', to: jb.id, data: { c: 1 } });
      expect(await b.next('candidate')).toMatchObject({ from: ja.id });
      b.ws.close();
      expect(await a.next('peer-left')).toMatchObject({ id: jb.id });
      expect(s.counted.some(([n]) => n === 'signal.relay')).toBe(true);
      expect(s.counted.some(([n]) => n === 'signal.messages.in')).toBe(true);
      expect(s.counted.filter(([n]) => n === 'signal.connections').at(-1)).toEqual(['signal.connections', 1]);
      // In: 2 joins, offer, answer, candidate. Out: 2 joined, peer-joined, the 3 relayed, peer-left.
      expect(s.signaling.stats()).toEqual({ connections: 1, messagesIn: 5, messagesOut: 7 });
    } finally {
      a.ws.close();
      await s.close();
    }
  });

  test('each bad input gets its error code, and the connection (and the others) carry on', async () => {
    const s = await serve();
    const a = client(s.url);
    const other = client(s.url);
    try {
      await Promise.all([a.opened, other.opened]);
      other.send({ type: 'join', room: 'r2' });
      await other.next('joined');
      const cases = [
        ['nope', 'BAD_JSON'],
        [{ type: 'dance' }, 'UNKNOWN_TYPE'],
        [{ type: 'offer', to: 'x', data: 1 }, 'NOT_JOINED'],
        [{ type: 'join', room: 'bad room' }, 'BAD_ROOM'],
      ];
      for (const [msg, code] of cases) {
        a.send(msg);
        expect(await a.next('error')).toMatchObject({ code });
      }
      a.send({ type: 'join', room: 'r2' });
      await a.next('joined');
      a.send({ type: 'join', room: 'r3' });
      expect(await a.next('error')).toMatchObject({ code: 'ALREADY_JOINED' });
      a.send({ type: 'offer', to: 'nobody', data: 1 });
      expect(await a.next('error')).toMatchObject({ code: 'NO_SUCH_PEER' });
      expect(a.ws.readyState).toBe(WebSocket.OPEN);
      expect(other.ws.readyState).toBe(WebSocket.OPEN);
    } finally {
      a.ws.close();
      other.ws.close();
      await s.close();
    }
  });

  test('an oversized message or a flood closes only the offender (1009, 1008); a flood first drops', async () => {
    const s = await serve({ ...LIMITS, MAX_MESSAGE_BYTES: 1024, MESSAGES_PER_S: 5, CLOSE_FACTOR: 3 });
    const big = client(s.url);
    const flood = client(s.url);
    const calm = client(s.url);
    try {
      await Promise.all([big.opened, flood.opened, calm.opened]);
      big.send(JSON.stringify({ type: 'join', room: 'x'.repeat(2000) }));
      expect(await big.closed).toBe(1009);
      for (let i = 0; i < 20; i++) flood.send({ type: 'dance' });
      expect(await flood.closed).toBe(1008);
      expect(flood.got.some((m) => m.code === 'RATE_LIMITED')).toBe(true);
      calm.send({ type: 'join', room: 'ok' });
      expect(await calm.next('joined')).toMatchObject({ peers: [] });
    } finally {
      calm.ws.close();
      await s.close();
    }
  });

  test('heartbeats close a peer that stopped answering, and its room is told', async () => {
    const s = await serve({ ...LIMITS, HEARTBEAT_MS: 100 });
    const alive = client(s.url);
    const dead = client(s.url);
    try {
      await Promise.all([alive.opened, dead.opened]);
      alive.send({ type: 'join', room: 'h' });
      await alive.next('joined');
      dead.send({ type: 'join', room: 'h' });
      const j = await dead.next('joined');
      // Stops reading: no pong goes back.
      dead.ws._socket.pause();
      expect(await alive.next('peer-left')).toMatchObject({ id: j.id });
    } finally {
      alive.ws.close();
      dead.ws.terminate();
      await s.close();
    }
  });
});
