'use strict';

const net = require('node:net');
const { helloGate } = require('../../hub/gate');
const createHub = require('../../hub/server');
const hubClient = require('../../service/signal/hub-client');

const listen = (server) => new Promise((r) => server.listen(0, '127.0.0.1', () => r(server.address().port)));
const connect = (port) =>
  new Promise((resolve) => {
    const s = net.connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.gone = new Promise((r) => s.on('close', () => r(true)));
    s.on('error', () => {});
  });

test('connections that never say hello: at most maxWaiting held, the oldest closed first, the rest after helloMs', async () => {
  const gate = helloGate({ helloMs: 400, maxWaiting: 5 });
  const server = net.createServer((s) => gate.admit(s));
  const port = await listen(server);
  try {
    const idle = [];
    for (let i = 0; i < 8; i++) idle.push(await connect(port));
    // The first three were closed to make room for the last three.
    await Promise.all(idle.slice(0, 3).map((s) => s.gone));
    expect(gate.waiting).toBe(5);
    expect(idle.slice(3).every((s) => !s.destroyed)).toBe(true);
    await Promise.all(idle.map((s) => s.gone));
    expect(gate.waiting).toBe(0);
  } finally {
    gate.close();
    await new Promise((r) => server.close(r));
  }
});

// Before the gate, 2,000 idle connections were held for good and a replica's own hello was
// then reset under a low open-file limit.
test('the hub: 300 idle strangers do not keep a service process out, and are closed after a few seconds', async () => {
  const hub = createHub({ token: 'secret', gate: { helloMs: 1500, maxWaiting: 64 } });
  const port = await listen(hub.server);
  const idle = [];
  let client;
  try {
    for (let i = 0; i < 300; i++) idle.push(await connect(port));
    expect(hub.gate.waiting).toBeLessThanOrEqual(64);
    client = hubClient(`127.0.0.1:${port}`, { token: 'secret' });
    const id = await client.roomId(2);
    expect(typeof id).toBe('string');
    await Promise.all(idle.map((s) => s.gone));
    expect(hub.gate.waiting).toBe(0);
    // The greeted process is still served.
    expect(await client.roomId(2)).toBe(id);
  } finally {
    if (client) client.close();
    for (const s of idle) s.destroy();
    await hub.stop();
  }
}, 20000);
