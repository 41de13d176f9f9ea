'use strict';

const { monitorEventLoopDelay } = require('node:perf_hooks');
const { bucketOf, bucketUpperMs, parseAddress, delayOf, TOOL } = require('../../probe/preload');

test('a delay falls in the bucket whose upper bound is the first at or above it, 9% wide', () => {
  expect(bucketOf(0)).toBe(0);
  expect(bucketOf(0.05)).toBe(0);
  expect(bucketOf(0.1)).toBe(0);
  for (const ms of [0.1001, 0.105, 0.33, 1, 7.5, 250, 4000, 59999]) {
    const b = bucketOf(ms);
    expect(bucketUpperMs(b)).toBeGreaterThanOrEqual(ms - 1e-9);
    expect(bucketUpperMs(b - 1)).toBeLessThan(ms);
    expect(bucketUpperMs(b) / ms).toBeLessThan(1.1);
  }
  expect(bucketOf(1e9)).toBe(bucketOf(1e12));
});

test('the collector address is host:port, and nothing else', () => {
  expect(parseAddress('127.0.0.1:8125')).toEqual({ host: '127.0.0.1', port: 8125 });
  expect(parseAddress('lab-host:9')).toEqual({ host: 'lab-host', port: 9 });
  for (const bad of ['', undefined, '127.0.0.1', ':80', 'h:0', 'h:70000', 'h:x']) expect(parseAddress(bad)).toBeNull();
});

test("package managers' own processes are left out, the service's programs are not", () => {
  for (const p of ['/usr/lib/node_modules/npm/bin/npm-cli.js', '/usr/bin/npm', 'C:\\npx-cli.js', '/x/yarn.js']) {
    expect(TOOL.test(p)).toBe(true);
  }
  for (const p of ['/srv/app/server.js', '/app/npm-helper.js', '/x/mynpm']) expect(TOOL.test(p)).toBe(false);
});

test('an interval of the loop delay as count, max, p50, p99 and buckets holding every sample', async () => {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  await new Promise((r) => setTimeout(r, 150));
  const t = Date.now();
  while (Date.now() - t < 60); // one late timer of ~60 ms
  await new Promise((r) => setTimeout(r, 50));
  h.disable();
  const [count, max, p50, p99, buckets] = delayOf(h);
  expect(count).toBe(h.count);
  const inBuckets = Object.values(buckets).reduce((a, b) => a + b, 0);
  expect(Math.abs(inBuckets - count)).toBeLessThan(0.05 * count + 1);
  // (A busy 2-core machine may add its own lateness: bounds, not values.)
  expect(max).toBeGreaterThanOrEqual(45);
  expect(p50).toBeLessThanOrEqual(p99);
  expect(p99).toBeLessThanOrEqual(max);
});
