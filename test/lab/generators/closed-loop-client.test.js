'use strict';

// A burst (lab/generators/closed-loop-client.js, characterize's first waves): each latency is
// the service's, from the request written to its answer, not this process's time opening the
// connections. A server of the test's own, in a process of its own, answers every request after
// 200 ms (asynchronous); this thread is held for a second right after the burst is asked for,
// as a busy machine held a characterization's (an asynchronous box once read as synchronous).
const { startProgram } = require('../../helper');
const { burst } = require('../../../lab/generators/closed-loop-client');

const DELAY_MS = 200;
const HOLD_MS = 1000;

// Started and stopped by the tests' helper; it writes its port when it listens.
async function delayed() {
  const code = `require('node:http').createServer((q, a) => setTimeout(() => a.end('ok'), ${DELAY_MS}))
    .listen(0, '127.0.0.1', function () { console.error(this.address().port); });`;
  const child = await startProgram('-e', [code], { ready: (err) => err.includes('\n') });
  return { url: `http://127.0.0.1:${child.output().stderr.trim()}/`, stop: () => child.stop() };
}

test('a burst times each request from its writing: a held thread does not make the first wave late', async () => {
  const srv = await delayed();
  try {
    const pending = burst({ url: srv.url, count: 20, timeoutMs: 10000 });
    const until = Date.now() + HOLD_MS;
    while (Date.now() < until);
    const b = await pending;
    expect(b.errors).toEqual({});
    expect(b.latenciesMs).toHaveLength(20);
    // Never under the service's delay (a request reaches it after it was written), and without
    // the held second (then every one read over 1.2 s).
    expect(Math.min(...b.latenciesMs)).toBeGreaterThanOrEqual(DELAY_MS - 1);
    expect(Math.max(...b.latenciesMs)).toBeLessThan(HOLD_MS);
  } finally {
    await srv.stop();
  }
});
