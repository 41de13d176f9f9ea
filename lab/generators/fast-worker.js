'use strict';

// One worker thread of the lab's own engines (lab/generators/fast.js). Open loop (`fast`):
// it sends its share of the schedule, each request at its due time, on a new connection (as
// Artillery's one-request virtual users do) or on kept-alive ones. Closed loop (`closed`):
// each of its connections sends the next request when the previous one is answered, as
// `ab -c`, `wrk -c` and k6's virtual users do. Either way it posts, for every second of the
// run, what was launched and completed in it with latency histograms. In the open loop
// latency is timed from the due time, so a late send (the generator's own lag) shows in it
// instead of hiding (no coordinated omission); it is always also timed from the actual send.
const http = require('node:http');
const https = require('node:https');
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const { arrivals } = require('./schedule');
const { create, encode } = require('./histogram');
const { pathPicker } = require('../../artillery/objects');

// Runs one shard of the plan; `port` carries its messages (a thread's parentPort, or an
// in-process pair when the generator runs a single shard on its main thread).
function runShard(data, port) {
  const { mode, target, path, phases, shard, of, t0, keepalive, timeoutMs, connections, requests, durationMs } = data;
  const clock = () => performance.timeOrigin + performance.now();
  // One target, or several (no balancer: the generator spreads its requests over the
  // replicas itself, round-robin, as clients of a NodePort service would).
  const urls = (data.targets && data.targets.length ? data.targets : [target]).map((t) => new URL(t));
  // One path, or an object per request drawn from a popularity law (artillery/objects.js).
  const nextPath = pathPicker(path, data.objects);
  let turn = shard;
  const lib = urls[0].protocol === 'https:' ? https : http;
  // The request each arrival sends (lab/scenario/request.js): GET of the path by default.
  const method = data.request?.method ?? 'GET';
  const body = data.request?.body != null ? Buffer.from(data.request.body) : null;
  const headers = {
    'user-agent': 'node-deploy-lab',
    ...(data.request?.headers || {}),
    ...(body ? { 'content-length': String(body.length) } : {}),
  };
  const agent = keepalive ? new lib.Agent({ keepAlive: true, maxSockets: Infinity }) : false;

  const buckets = new Map();
  function bucket(at) {
    // A timer firing a little early for the first arrival must not open a second before t0.
    const sec = Math.max(0, Math.floor((at - t0) / 1000));
    let b = buckets.get(sec);
    if (!b) {
      b = {
        sec,
        launched: 0,
        completed: 0,
        codes: {},
        errors: {},
        // Which replica answered, and its time to answer, as the entry said (X-Lab-Upstream).
        upstreams: {},
        latency: create(),
        fromSend: create(),
        lag: create(),
        upstream: create(),
      };
      buckets.set(sec, b);
    }
    return b;
  }
  const add = (obj, key) => (obj[key] = (obj[key] || 0) + 1);
  const us = (ms) => Math.max(1, Math.round(ms * 1000));

  let pending = 0;
  let stopped = false;

  function send(due, then = () => {}) {
    if (stopped) return;
    const sentAt = clock();
    const url = urls[turn++ % urls.length];
    // Timed from the due time, or from the send when a timer fired a little early (Node's
    // timers round to whole milliseconds either way): never crediting an early send.
    const from = Math.min(due, sentAt);
    const b = bucket(sentAt);
    b.launched += 1;
    b.lag.recordValue(us(Math.max(0, sentAt - due)));
    pending += 1;
    let settled = false;
    const settle = (fn) => {
      if (settled) return;
      settled = true;
      pending -= 1;
      fn(bucket(clock()));
      then();
    };
    const req = lib.request(
      {
        hostname: url.hostname,
        port: url.port,
        path: nextPath(),
        method,
        agent,
        headers,
      },
      (res) => {
        res.on('data', () => {});
        res.on('end', () =>
          settle((done) => {
            const end = clock();
            done.completed += 1;
            add(done.codes, String(res.statusCode));
            done.latency.recordValue(us(end - from));
            done.fromSend.recordValue(us(end - sentAt));
            const up = res.headers['x-lab-upstream'];
            if (up) {
              add(done.upstreams, up);
              const ms = upstreamMs(res.headers);
              if (ms !== null) done.upstream.recordValue(us(ms));
            }
          }),
        );
        res.on('error', (err) => settle((done) => add(done.errors, err.code || 'ERESPONSE')));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => settle((done) => add(done.errors, err.code || 'EREQUEST')));
    req.end(body);
  }

  // Posts every second that is over (and, at the end, all of them), empty ones too, so the
  // coordinator can merge a second as soon as every worker has posted it.
  let nextSec = 0;
  function flush(all = false) {
    const now = Math.floor((clock() - t0) / 1000);
    const last = all ? Math.max(now, ...buckets.keys()) : now - 1;
    for (; nextSec <= last; nextSec++) {
      const sec = nextSec;
      const b = buckets.get(sec) || bucket(t0 + sec * 1000);
      buckets.delete(sec);
      port.postMessage({
        type: 'second',
        sec,
        launched: b.launched,
        completed: b.completed,
        codes: b.codes,
        errors: b.errors,
        pending,
        upstreams: b.upstreams,
        latency: encode(b.latency),
        fromSend: encode(b.fromSend),
        lag: encode(b.lag),
        upstream: encode(b.upstream),
      });
    }
  }

  // Open loop: the schedule's arrivals of this worker, each on a timer of its own armed a
  // little ahead. One timer per arrival fires within about a millisecond either side of its
  // due time; a single timer re-armed for the next arrival fired 0.6 ms late at the median
  // (Node rounds a wait under 1 ms up to 1 ms), which read /ping's 0.7 ms as 1.5 ms.
  const HORIZON_MS = 250;
  const schedule = mode === 'open' ? arrivals(phases, { shard, of }) : null;
  let next = schedule ? schedule.next() : null;
  let armed = 0;
  function fire(due) {
    armed -= 1;
    send(due);
    if (next.done && armed === 0) finishWhenDrained();
  }
  function arm() {
    if (stopped) return;
    const horizon = clock() + HORIZON_MS;
    while (!next.done && t0 + next.value.at <= horizon) {
      const due = t0 + next.value.at;
      armed += 1;
      setTimeout(fire, Math.max(0, due - clock()), due);
      next = schedule.next();
    }
    if (!next.done) setTimeout(arm, HORIZON_MS / 2);
    else if (armed === 0) finishWhenDrained();
  }

  const ticker = setInterval(() => flush(false), 1000);
  function finish() {
    clearInterval(ticker);
    flush(true);
    port.postMessage({ type: 'end' });
    if (agent) agent.destroy();
  }
  function finishWhenDrained() {
    const check = () => (pending === 0 || stopped ? finish() : setTimeout(check, 20));
    check();
  }

  port.on('message', (m) => {
    if (m.type === 'stop' && !stopped) {
      stopped = true;
      finish();
    }
  });

  // Closed loop: this worker's connections, each sending again as soon as it is answered,
  // until its share of `requests` is sent or `durationMs` is over.
  function loops() {
    let budget = requests === undefined ? Infinity : Math.floor(requests / of) + (shard < requests % of ? 1 : 0);
    const end = durationMs === undefined ? Infinity : t0 + durationMs;
    let running = 0;
    const loop = () => {
      if (stopped || budget <= 0 || clock() >= end) {
        running -= 1;
        if (running === 0) finishWhenDrained();
        return;
      }
      budget -= 1;
      const now = clock();
      send(now, loop);
    };
    const mine = Math.floor(connections / of) + (shard < connections % of ? 1 : 0);
    running = mine;
    if (mine === 0) return finishWhenDrained();
    for (let i = 0; i < mine; i++) loop();
  }

  const startIn = t0 - clock();
  // The open loop arms its first timers ahead of t0; the closed loop starts sending at t0.
  if (mode === 'open') setTimeout(arm, Math.max(0, startIn - HORIZON_MS / 2));
  else setTimeout(loops, Math.max(0, startIn));
}

// The entry's time to the replica's answer: X-Lab-Upstream-Ms (Caddy, the node balancer) or
// -S (nginx's $upstream_header_time, in seconds; "0.002, 0.011" after a retry: the last).
function upstreamMs(h) {
  const raw = h['x-lab-upstream-ms'] ?? h['x-lab-upstream-s'];
  if (raw === undefined) return null;
  const v = Number(String(raw).split(',').pop().trim());
  if (!Number.isFinite(v) || v < 0) return null;
  return h['x-lab-upstream-ms'] !== undefined ? v : v * 1000;
}

if (!isMainThread) runShard(workerData, parentPort);

module.exports = runShard;
