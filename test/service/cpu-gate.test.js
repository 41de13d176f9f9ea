'use strict';

const http = require('node:http');
const createApp = require('../../service/app');
const createUpstream = require('../../service/upstream');
const { loadConfig } = require('../../service/config');
const { get, listen } = require('../helper');

async function serve(env = {}) {
  const seen = [];
  const metrics = { timing() {}, increment: (n) => seen.push(n), close() {} };
  const upstream = createUpstream({ timeoutMs: 2000 });
  const app = createApp({ config: loadConfig(env), identity: { instance: 'r', worker: 1 }, upstream, metrics });
  const srv = await listen(app);
  return {
    ...srv,
    seen,
    close: async () => {
      upstream.close();
      await srv.close();
    },
  };
}

// A request its client abandons after `ms`.
function abandon(url, ms) {
  const req = http.get(url, { agent: false });
  req.on('error', () => {});
  setTimeout(() => req.destroy(), ms);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// Timing tolerances: the work abandoned below is ~5 s of CPU here (/work?n=100000); the
// process notices within a 10 ms slice. The bounds (2 s, 300 ms) leave seconds of slack for
// a busy 2-core machine and are still far from what running the work out would take.
describe('CPU endpoints and their clients', () => {
  test('a /work whose client left stops: a /ping after it is answered at once, not after the work', async () => {
    const s = await serve();
    try {
      abandon(`${s.url}/work?n=100000`, 150);
      abandon(`${s.url}/work?n=100000`, 150);
      await sleep(300);
      const ping = await get(`${s.url}/ping`);
      expect(ping.status).toBe(200);
      expect(ping.ms).toBeLessThan(2000);
      expect(s.seen.filter((n) => n === 'cpu.aborted' || n === 'cpu.dropped')).toHaveLength(2);
    } finally {
      await s.close();
    }
  });

  test('/heavy still holds its process: a /ping sent meanwhile waits behind it', async () => {
    const s = await serve();
    try {
      const heavy = get(`${s.url}/heavy?ms=600`);
      await sleep(100);
      const ping = await get(`${s.url}/ping`);
      expect((await heavy).status).toBe(200);
      expect(ping.ms).toBeGreaterThan(300);
    } finally {
      await s.close();
    }
  });

  test('one at a time, in arrival order; past CPU_QUEUE_MAX waiting, 503 with Retry-After at once', async () => {
    const s = await serve({ CPU_QUEUE_MAX: '2' });
    try {
      // (Each answer with the time it ended: the order of the ends is what is judged, not
      // how long a request took from its send, which a busy machine's late timers stretch.)
      const ended = (r) => r.then((x) => ({ ...x, end: performance.now() }));
      const running = ended(get(`${s.url}/heavy?ms=400`));
      await sleep(50);
      const waiting = [ended(get(`${s.url}/heavy?ms=100`)), ended(get(`${s.url}/work?n=10`))];
      await sleep(50);
      const refused = await get(`${s.url}/heavy?ms=100`);
      expect(refused.status).toBe(503);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      expect(JSON.parse(refused.body).error.code).toBe('BUSY');
      expect(refused.ms).toBeLessThan(300);
      const done = await Promise.all([running, ...waiting]);
      expect(done.map((r) => r.status)).toEqual([200, 200, 200]);
      // One at a time, in arrival order: the second /heavy waited (maxWaiting below) and ended
      // after the first, the /work after it. (Its time from the send, once judged against
      // 300 ms, fell to 270 when a busy machine's late timer sent it 230 ms in.)
      expect(done[1].end).toBeGreaterThan(done[0].end);
      expect(done[2].end).toBeGreaterThan(done[1].end);
      const stats = JSON.parse((await get(`${s.url}/stats`)).body).cpu;
      expect(stats).toEqual({ running: false, waiting: 0, held: 0, maxWaiting: 2 });
    } finally {
      await s.close();
    }
  });
});
