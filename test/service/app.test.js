'use strict';

const createApp = require('../../service/app');
const createUpstream = require('../../service/upstream');
const { loadConfig } = require('../../service/config');
const { get, listen, freePort } = require('../helper');

// A metrics sink that remembers what the app reported.
function recorder() {
  const seen = [];
  return {
    seen,
    timing: (name, ms) => seen.push(['timing', name, ms]),
    increment: (name) => seen.push(['increment', name]),
    close() {},
  };
}

async function serve(env = {}, upstreamTimeoutMs = 2000) {
  const config = loadConfig({ HEAVY_MS: '50', ...env });
  const metrics = recorder();
  const upstream = createUpstream({ timeoutMs: upstreamTimeoutMs });
  const app = createApp({ config, identity: { instance: 'replica-7', worker: 2 }, upstream, metrics });
  const srv = await listen(app);
  return {
    ...srv,
    metrics,
    close: async () => {
      upstream.close();
      await srv.close();
    },
  };
}

describe('service app', () => {
  test('/ping answers a constant tiny body and names who served it', async () => {
    const s = await serve();
    try {
      const r = await get(`${s.url}/ping`);
      expect(r.status).toBe(200);
      expect(r.body).toBe('pong');
      expect(r.headers['content-type']).toMatch(/^text\/plain/);
      expect(r.headers['x-instance']).toBe('replica-7');
      expect(r.headers['x-worker']).toBe('2');
    } finally {
      await s.close();
    }
  });

  test('/asset/NAME answers N cacheable bytes, the same for the same request, and refuses bad input', async () => {
    const s = await serve({ ASSET_MAX_AGE_S: '30' });
    try {
      const a = await get(`${s.url}/asset/obj-7?bytes=1000`);
      expect(a.status).toBe(200);
      expect(a.body.length).toBe(1000);
      expect(a.body.startsWith('obj-7\nobj-7\n')).toBe(true);
      expect(a.headers['cache-control']).toBe('public, max-age=30');
      expect(a.headers['x-instance']).toBe('replica-7');
      expect((await get(`${s.url}/asset/obj-7?bytes=1000`)).body).toBe(a.body);
      expect((await get(`${s.url}/asset/obj-7`)).body.length).toBe(10240);
      expect((await get(`${s.url}/asset/obj-7?bytes=0`)).body).toBe('');
      for (const bad of ['/asset/obj-7?bytes=-1', '/asset/obj-7?bytes=2000000', '/asset/obj-7?bytes=x']) {
        const r = await get(`${s.url}${bad}`);
        expect(r.status).toBe(400);
        expect(JSON.parse(r.body).error.code).toBe('BAD_BYTES');
      }
      expect((await get(`${s.url}/asset/${'x'.repeat(65)}`)).status).toBe(400);
      // One metric name for every object, not one per name.
      expect(s.metrics.seen.some(([, n]) => n === 'asset.status.200')).toBe(true);
      expect(s.metrics.seen.some(([, n]) => /obj-7/.test(n))).toBe(false);
    } finally {
      await s.close();
    }
  });

  test('/heavy works for HEAVY_MS by default and for ?ms=N when given', async () => {
    const s = await serve();
    try {
      const d = await get(`${s.url}/heavy`);
      expect(d.status).toBe(200);
      expect(JSON.parse(d.body)).toMatchObject({ ms: 50 });
      expect(JSON.parse(d.body).tookMs).toBeGreaterThanOrEqual(50);
      const r = await get(`${s.url}/heavy?ms=120`);
      expect(JSON.parse(r.body).ms).toBe(120);
      // Lower bound only: the burn never ends early; a busy machine can only make it longer.
      expect(r.ms).toBeGreaterThanOrEqual(119);
    } finally {
      await s.close();
    }
  });

  test.each(['abc', '0', '60001', '-5', '1.5', ''])('/heavy?ms=%s is a 400 with a JSON error', async (ms) => {
    const s = await serve();
    try {
      const r = await get(`${s.url}/heavy?ms=${ms}`);
      expect(r.status).toBe(400);
      expect(r.headers['content-type']).toMatch(/json/);
      expect(JSON.parse(r.body).error.code).toBe('BAD_MS');
      expect(r.headers['x-instance']).toBe('replica-7');
    } finally {
      await s.close();
    }
  });

  test('/sleep answers after ms without holding the process: two at once take about one', async () => {
    const s = await serve();
    try {
      const d = JSON.parse((await get(`${s.url}/sleep`)).body);
      expect(d.ms).toBe(200);
      expect(d.tookMs).toBeGreaterThanOrEqual(199);
      const t0 = performance.now();
      const both = await Promise.all([get(`${s.url}/sleep?ms=500`), get(`${s.url}/sleep?ms=500`)]);
      for (const r of both) expect(JSON.parse(r.body).tookMs).toBeGreaterThanOrEqual(499);
      // Back to back they would take 1,000 ms; 400 ms of slack for a busy 2-core machine.
      expect(performance.now() - t0).toBeLessThan(900);
      expect(s.metrics.seen.some(([, n]) => n === 'sleep.status.200')).toBe(true);
    } finally {
      await s.close();
    }
  });

  test('/work does n rounds of a fixed computation, the same result for the same n', async () => {
    const s = await serve();
    try {
      const a = JSON.parse((await get(`${s.url}/work?n=50`)).body);
      const b = JSON.parse((await get(`${s.url}/work?n=50`)).body);
      expect(a.n).toBe(50);
      expect(a.result).toBe(b.result);
      expect(JSON.parse((await get(`${s.url}/work`)).body).n).toBe(100);
      expect(JSON.parse((await get(`${s.url}/work?n=51`)).body).result).not.toBe(a.result);
    } finally {
      await s.close();
    }
  });

  test.each([
    ['/sleep?ms=0', 'BAD_MS'],
    ['/sleep?ms=x', 'BAD_MS'],
    ['/work?n=0', 'BAD_N'],
    ['/work?n=100001', 'BAD_N'],
    ['/room?size=0', 'BAD_SIZE'],
  ])('%s is a 400 with %s', async (url, code) => {
    const s = await serve();
    try {
      const r = await get(`${s.url}${url}`);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).error.code).toBe(code);
    } finally {
      await s.close();
    }
  });

  test('/bbox1 and /bbox2 relay their black box answer', async () => {
    const box1 = await listen((req, res) => res.end('Hello, world!'));
    const box2 = await listen((req, res) => {
      res.statusCode = 503;
      res.end('busy');
    });
    const s = await serve({ BBOX1_URL: box1.url, BBOX2_URL: box2.url });
    try {
      const r1 = await get(`${s.url}/bbox1`);
      expect([r1.status, r1.body]).toEqual([200, 'Hello, world!']);
      const r2 = await get(`${s.url}/bbox2`);
      expect([r2.status, r2.body]).toEqual([503, 'busy']);
      const names = s.metrics.seen.map((m) => m[1]);
      expect(names).toEqual(expect.arrayContaining(['bbox.bbox1.call', 'bbox.bbox2.call']));
    } finally {
      await Promise.all([s.close(), box1.close(), box2.close()]);
    }
  });

  test('a black box that is down gives a quick 502 with a JSON error', async () => {
    const port = await freePort();
    const s = await serve({ BBOX1_URL: `http://127.0.0.1:${port}` });
    try {
      const r = await get(`${s.url}/bbox1`);
      expect(r.status).toBe(502);
      expect(JSON.parse(r.body).error.code).toBe('UPSTREAM_REFUSED');
      // Generous bound for a busy 2-core machine; a refused connect takes ~1 ms.
      expect(r.ms).toBeLessThan(1000);
    } finally {
      await s.close();
    }
  });

  test('a black box that does not answer in time gives a 504 with a JSON error', async () => {
    const silent = await listen(() => {});
    const s = await serve({ BBOX2_URL: silent.url }, 200);
    try {
      const r = await get(`${s.url}/bbox2`);
      expect(r.status).toBe(504);
      expect(JSON.parse(r.body).error.code).toBe('UPSTREAM_TIMEOUT');
      expect(r.ms).toBeGreaterThanOrEqual(195);
    } finally {
      await Promise.all([s.close(), silent.close()]);
    }
  });

  test('/healthz reports the instance and worker; unknown paths are JSON 404s', async () => {
    const s = await serve();
    try {
      const h = await get(`${s.url}/healthz`);
      expect(h.status).toBe(200);
      expect(JSON.parse(h.body)).toMatchObject({ status: 'ok', instance: 'replica-7', worker: 2 });
      const n = await get(`${s.url}/nope`);
      expect(n.status).toBe(404);
      expect(JSON.parse(n.body).error.code).toBe('NOT_FOUND');
    } finally {
      await s.close();
    }
  });

  test('every answer is timed and counted by status, per endpoint', async () => {
    const s = await serve();
    try {
      await get(`${s.url}/ping`);
      await get(`${s.url}/heavy?ms=x`);
      // 'finish' fires as the response is handed to the socket; give it a tick.
      await new Promise((r) => setTimeout(r, 20));
      const seen = s.metrics.seen.map((m) => `${m[0]}:${m[1]}`);
      expect(seen).toEqual(
        expect.arrayContaining([
          'timing:ping.response_time',
          'increment:ping.status.200',
          'timing:heavy.response_time',
          'increment:heavy.status.400',
        ]),
      );
    } finally {
      await s.close();
    }
  });
});
