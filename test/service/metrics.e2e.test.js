'use strict';

const dgram = require('node:dgram');
const { get, freePort, startProgram } = require('../helper');

function udpListener() {
  return new Promise((resolve) => {
    const sock = dgram.createSocket('udp4');
    const lines = [];
    sock.on('message', (m) => lines.push(...m.toString().split('\n')));
    sock.bind(0, '127.0.0.1', () => resolve({ sock, lines, port: sock.address().port }));
  });
}

async function startService(env) {
  const port = await freePort();
  const svc = await startProgram('service', [], {
    env: { PORT: String(port), INSTANCE: 'm1', ...env },
    ready: (err) => err.includes('listening'),
  });
  return { svc, url: `http://127.0.0.1:${port}` };
}

describe('service metrics over StatsD', () => {
  test('timers and status counters reach a StatsD listener with the configured prefix', async () => {
    const udp = await udpListener();
    const { svc, url } = await startService({
      STATSD_HOST: '127.0.0.1',
      STATSD_PORT: String(udp.port),
      STATSD_PREFIX: 'lab.t',
    });
    try {
      await get(`${url}/ping`);
      await get(`${url}/ping`);
      // statsd-client buffers and flushes on its 1 s socket timer.
      const deadline = Date.now() + 5000;
      while (!udp.lines.some((l) => l.startsWith('lab.t.ping.status.200:')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(udp.lines.some((l) => /^lab\.t\.ping\.response_time:[\d.]+\|ms$/.test(l))).toBe(true);
      expect(udp.lines.some((l) => /^lab\.t\.ping\.status\.200:1\|c$/.test(l))).toBe(true);
    } finally {
      await svc.stop();
      udp.sock.close();
    }
  });

  test('with nothing listening for StatsD, requests are unaffected', async () => {
    const dead = await freePort();
    const { svc, url } = await startService({ STATSD_HOST: '127.0.0.1', STATSD_PORT: String(dead) });
    try {
      for (let i = 0; i < 30; i++) {
        const r = await get(`${url}/ping`);
        expect(r.status).toBe(200);
      }
      // Across the client's flush timer: the ICMP "port unreachable" comes back then.
      await new Promise((r) => setTimeout(r, 1300));
      expect((await get(`${url}/ping`)).status).toBe(200);
      expect(svc.child.exitCode).toBeNull();
    } finally {
      await svc.stop();
    }
  });
});
