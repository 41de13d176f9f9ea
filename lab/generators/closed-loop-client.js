'use strict';

const http = require('node:http');
const summarize = require('../measure/stats');

// A closed-loop load generator: `concurrency` keep-alive connections, each sending its next
// request as soon as the previous answer arrives, so exactly `concurrency` requests are in
// flight. Latency: every request started after the warm-up (connection set-up, JIT), to
// its end. Throughput: answers that arrived inside the measured window, over its length.
// (Counting only requests that both start and end inside the window undercounts: at one
// client and a 1.6 s delay it read 0.46/s for a true 0.62/s.)
async function closedLoop({ url, concurrency, durationMs, warmupMs = 0, timeoutMs = 30000, keepSamples = false }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency, maxFreeSockets: concurrency });
  const latencies = [];
  let inWindow = 0;
  const errors = {};
  const statuses = {};
  const t0 = performance.now();
  const measureFrom = t0 + warmupMs;
  const stopAt = measureFrom + durationMs;

  function once() {
    return new Promise((resolve) => {
      const start = performance.now();
      let settled = false;
      const settle = (r) => {
        if (settled) return;
        settled = true;
        resolve({ start, end: performance.now(), ...r });
      };
      const req = http.get(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, agent },
        (res) => {
          res.resume();
          res.on('end', () => settle({ status: res.statusCode }));
          res.on('error', (err) => settle({ error: err.code || 'ERROR' }));
          // A connection that closes mid-answer must still end this request (seen at 10,000
          // connections: requests left pending with no handle, and the process just exited).
          res.on('close', () => settle({ error: res.complete ? 'CLOSED' : 'ECONNRESET' }));
        },
      );
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (err) => settle({ error: err.code || 'ERROR' }));
      req.on('close', () => setImmediate(() => settle({ error: 'CLOSED' })));
    });
  }

  async function loop() {
    while (performance.now() < stopAt) {
      const r = await once();
      if (!r.error && r.end >= measureFrom && r.end <= stopAt) inWindow++;
      if (r.start < measureFrom) continue;
      if (r.error) {
        errors[r.error] = (errors[r.error] || 0) + 1;
        // A refused or reset connection answers at once: pause so one dead target does not
        // become a busy loop.
        await new Promise((res) => setTimeout(res, 50));
        continue;
      }
      statuses[r.status] = (statuses[r.status] || 0) + 1;
      latencies.push(r.end - r.start);
    }
  }

  await Promise.all(Array.from({ length: concurrency }, loop));
  agent.destroy();
  return {
    concurrency,
    durationMs,
    completed: latencies.length,
    throughput: inWindow / (durationMs / 1000),
    statuses,
    errors,
    latencyMs: summarize(latencies),
    ...(keepSamples ? { samples: latencies } : {}),
  };
}

module.exports = closedLoop;

// A burst: `count` requests sent at the same instant on fresh connections, each one's
// latency returned. Against W synchronous workers exactly W of them are served at once and
// answer after about one delay, the rest wait for a worker and take at least two, so the
// size of the first wave is W itself, read off one burst rather than inferred from a rise.
// Each latency runs from its request's last byte handed to the kernel to its answer's head:
// opening dozens of connections at once is this process's work, not the service's, and a
// busy machine once delayed it past half a delay for half a burst (an asynchronous box read
// as synchronous). A request reaches the service after it was written, so a wait for a
// worker still reads two delays at least.
async function burst({ url, count, timeoutMs = 30000 }) {
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: false, maxSockets: count });
  const one = () =>
    new Promise((resolve) => {
      let start = performance.now();
      const req = http.get(
        { host: target.hostname, port: target.port, path: target.pathname + target.search, agent },
        (res) => {
          const ms = performance.now() - start;
          res.resume();
          res.on('end', () => resolve({ ms, status: res.statusCode }));
          res.on('error', (err) => resolve({ error: err.code || 'ERROR' }));
        },
      );
      req.on('finish', () => (start = performance.now()));
      req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
      req.on('error', (err) => resolve({ error: err.code || 'ERROR' }));
    });
  const answers = await Promise.all(Array.from({ length: count }, one));
  agent.destroy();
  const errors = {};
  for (const a of answers)
    if (a.error || a.status >= 400) errors[a.error || a.status] = (errors[a.error || a.status] || 0) + 1;
  return { count, latenciesMs: answers.filter((a) => a.ms !== undefined).map((a) => a.ms), errors };
}

module.exports.burst = burst;
