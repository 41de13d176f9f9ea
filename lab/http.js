'use strict';

const net = require('node:net');
const http = require('node:http');

// One GET on a fresh connection, for health checks and probes. Resolves
// { status, headers, body, ms } or rejects on a network error or time-out.
// An https:// URL is checked against `ca` (a file: the lab's own CA of a --tls entry).
function get(url, { timeoutMs = 5000, ca = null } = {}) {
  return new Promise((resolve, reject) => {
    const start = performance.now();
    const secure = String(url).startsWith('https:');
    const lib = secure ? require('node:https') : http;
    const opts = { agent: false, ...(secure && ca ? { ca: readCa(ca) } : {}) };
    const req = lib.get(url, opts, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          headers: res.headers,
          body: Buffer.concat(chunks).toString(),
          ms: performance.now() - start,
        }),
      );
      res.on('error', reject);
    });
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`timeout: ${url}`), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
  });
}

// Polls url until `until(answers)` is satisfied or timeoutMs passes. `url` may be a function
// of the attempt's number, so that a balancer hashing on the URI sees several URIs.
// A plain TCP server (tcp://host:port, like the signaling hub) is up once it accepts.
function connects(url) {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: hostname, port: Number(port) }, () => {
      s.destroy();
      resolve({ status: 200, headers: {} });
    });
    s.setTimeout(2000, () => s.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    s.on('error', reject);
  });
}

// accept(status): which answers count (the lab's own services: 200 only).
// check: { everyMs, fn(last) }: asked at most every everyMs while the answers are not the
// ones awaited, with the last one seen ('HTTP 502', 'ECONNREFUSED'); a reason it returns ends
// the wait at once (the error's `why`): what no more waiting will change.
async function waitFor(
  url,
  { timeoutMs = 20000, until = () => true, accept = (status) => status === 200, ca = null, check = null } = {},
) {
  const deadline = Date.now() + timeoutMs;
  const answers = [];
  let last = 'no answer';
  let nextCheck = check ? Date.now() + check.everyMs : Infinity;
  const fail = (why = null) => Object.assign(new Error(last), { answers, ...(why ? { why } : {}) });
  for (let attempt = 0; Date.now() < deadline; attempt++) {
    try {
      const target = typeof url === 'function' ? url(attempt) : url;
      const r = target.startsWith('tcp:') ? await connects(target) : await get(target, { timeoutMs: 2000, ca });
      if (accept(r.status)) {
        answers.push(r);
        if (until(answers)) return answers;
        continue;
      }
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = err.code || err.message;
    }
    // (Not yet: a pause, not a loop as fast as a gateway's errors come back.)
    await new Promise((res) => setTimeout(res, 100));
    if (Date.now() >= nextCheck) {
      nextCheck = Date.now() + check.everyMs;
      const why = await check.fn(last);
      if (why) throw fail(why);
    }
  }
  throw fail();
}

// A CA file's PEM (read each time: a redeploy makes a new one at the same path).
const readCa = (file) => require('node:fs').readFileSync(file);

module.exports = { get, waitFor };
