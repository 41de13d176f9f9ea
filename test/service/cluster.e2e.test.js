'use strict';

const { get, freePort, startProgram } = require('../helper');

async function startService(env) {
  const port = await freePort();
  const workers = Number(env.WORKERS || 1);
  let seen = 0;
  const svc = await startProgram('service', [], {
    env: { PORT: String(port), INSTANCE: 'c1', ...env },
    // Single: "listening"; cluster: wait until the primary has announced its workers and
    // then poll until every slot answers (below).
    ready: (err) => err.includes('listening') || err.includes('workers on'),
  });
  const url = `http://127.0.0.1:${port}`;
  const slots = new Set();
  const deadline = Date.now() + 15000;
  while (slots.size < workers && Date.now() < deadline) {
    try {
      const r = await get(`${url}/healthz`, { timeoutMs: 2000 });
      slots.add(r.headers['x-worker']);
      seen++;
    } catch {
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { svc, url, seen };
}

// Timing tolerances: /heavy burns 1500 ms. With one worker a /ping sent 200 ms later must
// wait for it (> 1000 ms even if the scheduler is generous); with two workers it must not
// (< 600 ms, leaving 400+ ms of slack for a busy 2-core machine).
describe('service process model', () => {
  test('with one worker, /heavy delays a concurrent /ping', async () => {
    const { svc, url } = await startService({ WORKERS: '1' });
    try {
      const heavy = get(`${url}/heavy?ms=1500`);
      await new Promise((r) => setTimeout(r, 200));
      const ping = await get(`${url}/ping`);
      expect(ping.ms).toBeGreaterThan(1000);
      expect((await heavy).status).toBe(200);
    } finally {
      await svc.stop();
    }
  });

  test('with WORKERS=2, /ping is served by the other worker meanwhile', async () => {
    const { svc, url } = await startService({ WORKERS: '2' });
    try {
      // Round-robin over fresh connections: send the heavy one, then pings until one lands
      // on the other worker; it must be quick.
      const heavy = get(`${url}/heavy?ms=1500`);
      await new Promise((r) => setTimeout(r, 200));
      const ping = await get(`${url}/ping`);
      const heavyDone = await heavy;
      expect(ping.headers['x-worker']).not.toBe(heavyDone.headers['x-worker']);
      expect(ping.ms).toBeLessThan(600);
    } finally {
      await svc.stop();
    }
  });

  test('the primary replaces a worker that dies, in the same slot', async () => {
    const { svc, url } = await startService({ WORKERS: '2' });
    try {
      const pids = new Map();
      for (let i = 0; i < 6; i++) {
        const h = JSON.parse((await get(`${url}/healthz`)).body);
        pids.set(h.worker, h.pid);
      }
      expect([...pids.keys()].sort()).toEqual([1, 2]);
      process.kill(pids.get(1), 'SIGKILL');
      const deadline = Date.now() + 10000;
      let replaced;
      while (!replaced && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 100));
        const h = await get(`${url}/healthz`).then(
          (r) => JSON.parse(r.body),
          () => null,
        );
        if (h && h.worker === 1 && h.pid !== pids.get(1)) replaced = h;
      }
      expect(replaced).toBeTruthy();
      expect(svc.output().stderr).toMatch(/worker 1 .*died.*replacing/);
    } finally {
      await svc.stop();
    }
  });

  test.each(['1', '3'])('SIGTERM with WORKERS=%s lets an in-flight request finish, then exits 0', async (workers) => {
    const { svc, url } = await startService({ WORKERS: workers });
    const inflight = get(`${url}/heavy?ms=800`);
    await new Promise((r) => setTimeout(r, 200));
    svc.child.kill('SIGTERM');
    const r = await inflight;
    expect(r.status).toBe(200);
    const { code } = await svc.exited;
    expect(code).toBe(0);
    // Stopped accepting: nothing answers on the port any more.
    await expect(get(`${url}/ping`, { timeoutMs: 2000 })).rejects.toThrow();
  });
});
