'use strict';

const path = require('node:path');
const dgram = require('node:dgram');
const { spawn } = require('node:child_process');

const PRELOAD = path.join(__dirname, '..', '..', 'probe', 'preload.js');

// The preload as a service meets it: NODE_OPTIONS, one datagram a second, nothing in its way.
test('preloaded by NODE_OPTIONS, it sends a datagram a second, counts requests, and never keeps a process alive', async () => {
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const got = [];
  sock.on('message', (m) => got.push(JSON.parse(m)));
  const app = `
    const http = require('node:http');
    const s = http.createServer((q, r) => r.end('ok')).listen(0, '127.0.0.1', async () => {
      for (let i = 0; i < 4; i++) await fetch('http://127.0.0.1:' + s.address().port + '/').then((r) => r.text());
      setTimeout(() => s.close(), 2300);
    });`;
  const started = Date.now();
  const code = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', app], {
      env: {
        ...process.env,
        NODE_OPTIONS: `--require "${PRELOAD}"`,
        LAB_PROBE: `127.0.0.1:${sock.address().port}`,
        LAB_PROBE_NODE: 'replica-7',
      },
      stdio: 'ignore',
    });
    child.on('exit', resolve);
  });
  const took = Date.now() - started;
  await new Promise((r) => setTimeout(r, 100));
  sock.close();
  expect(code).toBe(0);
  // It exits when the server closes: the probe's timer and socket do not hold it (10 s: a busy machine).
  expect(took).toBeLessThan(10000);
  expect(got.length).toBeGreaterThanOrEqual(2);
  const d = got[0];
  expect(d).toMatchObject({ v: 1, node: 'replica-7', role: 'process', w: null });
  expect(d.elu).toHaveLength(2);
  expect(d.heap[0]).toBeGreaterThan(0);
  expect(got.reduce((a, x) => a + x.r, 0)).toBe(4);
  expect(got.map((x) => x.s)).toEqual(got.map((_, i) => i));
});

test('without LAB_PROBE it does nothing', async () => {
  const out = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', 'console.log(process.getActiveResourcesInfo().length)'], {
      env: { ...process.env, NODE_OPTIONS: `--require "${PRELOAD}"`, LAB_PROBE: '' },
    });
    let s = '';
    child.stdout.on('data', (c) => (s += c));
    child.on('exit', () => resolve(s.trim()));
  });
  const plain = await new Promise((resolve) => {
    const child = spawn(process.execPath, ['-e', 'console.log(process.getActiveResourcesInfo().length)']);
    let s = '';
    child.stdout.on('data', (c) => (s += c));
    child.on('exit', () => resolve(s.trim()));
  });
  expect(out).toBe(plain);
});
