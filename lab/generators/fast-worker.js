'use strict';

// One worker thread of the lab's own engines (lab/generators/fast.js). It runs the scenario
// model's flows (lab/scenario/model.js) as virtual users. Open loop (`fast`): each arrival
// of its share of the schedule is a virtual user, started at its due time, running its flow
// on a connection of its own (a new one for each request of a one-request flow, as
// Artillery's one-request virtual users do) or on kept-alive ones. Closed loop (`closed`):
// each of its connections is a virtual user running the flow again and again, as `wrk -c`
// and k6's virtual users do. Either way it posts, for every second of the run, what was
// launched and completed in it with latency histograms, by request name when the model has
// several. In the open loop a flow's first request is timed from its due time and each
// later one from when it was due (the previous answer, plus the think time), so a late send
// (the generator's own lag) shows in the latency instead of hiding (no coordinated
// omission); it is always also timed from the actual send.
const http = require('node:http');
const https = require('node:https');
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const { arrivals } = require('./schedule');
const { create, encode } = require('../measure/histogram');
const { prepareFlows } = require('./flow-steps');
const { capture } = require('../scenario/capture');
const { requestNames } = require('../scenario/model');
const { createEngine } = require('./keepalive');
const { upstreamTime } = require('./keepalive/response-parser');
const { LIMITS } = require('../scenario/limits');

// Runs one shard of the plan; `port` carries its messages (a thread's parentPort, or an
// in-process pair when the generator runs a single shard on its main thread).
function runShard(data, port) {
  const { mode, target, phases, shard, of, t0, keepalive, timeoutMs, connections, requests, durationMs } = data;
  const clock = () => performance.timeOrigin + performance.now();
  // One target, or several (no balancer: the generator spreads its requests over the
  // replicas itself, round-robin, as clients of a NodePort service would).
  const urls = (data.targets && data.targets.length ? data.targets : [target]).map((t) => new URL(t));
  let turn = shard;
  const lib = urls[0].protocol === 'https:' ? https : http;
  const flows = prepareFlows(data.model);
  // Per-name figures only when there is more than one name: the totals are the one name's.
  const byName = requestNames(data.model).length > 1;
  // Connections (./keepalive/): with --keepalive, the open loop's arrivals share a pool of
  // kept-alive ones and each of the closed loop's connections carries `pipelining` virtual
  // users for the run; without it, a one-request flow opens a connection per request
  // (node:http) and a longer flow keeps one for its virtual user.
  const pipelining = data.pipelining || 1;
  const engine = keepalive || flows.multi ? createEngine({ pipelining, timeoutMs }) : null;
  const vuConnections = [];
  let vuCount = 0;
  // A virtual user's connection: undefined (node:http), null (the pool's, per request), or
  // its own (`owned`: released with it).
  function connectionFor(closedLoop) {
    if (!engine) return { conn: undefined, owned: false };
    if (keepalive && !closedLoop) return { conn: null, owned: false };
    if (keepalive) {
      // The closed loop's connection i carries its virtual users i*N .. i*N+N-1.
      const i = Math.floor(vuCount++ / pipelining);
      if (!vuConnections[i]) vuConnections[i] = engine.connection(urls[i % urls.length]);
      return { conn: vuConnections[i], owned: false };
    }
    return { conn: engine.connection(urls[turn++ % urls.length]), owned: true };
  }

  const buckets = new Map();
  function bucket(at) {
    // A timer firing a little early for the first arrival must not open a second before t0;
    // and nothing is counted into a second already sent on (a timer a busy machine fired over
    // a second late, an arrival counted at its due time: it was lost, 107 of 110 counted).
    const sec = Math.max(nextSec, Math.floor((at - t0) / 1000));
    let b = buckets.get(sec);
    if (!b) {
      b = {
        sec,
        launched: 0,
        completed: 0,
        arrivals: 0,
        vusCompleted: 0,
        vusFailed: 0,
        codes: {},
        errors: {},
        // Which replica answered, and its time to answer, as the entry said (X-Lab-Upstream).
        upstreams: {},
        latency: create(),
        fromSend: create(),
        lag: create(),
        upstream: create(),
        requests: byName ? {} : null,
      };
      buckets.set(sec, b);
    }
    return b;
  }
  const add = (obj, key) => (obj[key] = (obj[key] || 0) + 1);
  const us = (ms) => Math.max(1, Math.round(ms * 1000));
  const named = (b, name) => {
    let n = b.requests[name];
    if (!n) n = b.requests[name] = { launched: 0, completed: 0, codes: {}, errors: {}, latency: create() };
    return n;
  };

  let pending = 0;
  let stopped = false;
  const open = mode === 'open';

  // One request of a virtual user, due at `due`; then(ok, endedAt) when it is answered (ok)
  // or failed. On the keep-alive engine when the virtual user has a connection there (or
  // takes one from the pool), else on node:http with a connection of its own.
  function send(step, vu, due, then) {
    if (stopped) return;
    const sentAt = clock();
    // Timed from the due time, or from the send when a timer fired a little early (Node's
    // timers round to whole milliseconds either way): never crediting an early send.
    const from = Math.min(due, sentAt);
    const b = bucket(sentAt);
    b.launched += 1;
    // (The closed loop sends when it is due, by definition: no lag to record.)
    if (open) b.lag.recordValue(us(Math.max(0, sentAt - due)));
    if (byName) named(b, step.name).launched += 1;
    pending += 1;
    const answered = ({ status, upstream, upstreamMs, text }) => {
      pending -= 1;
      const end = clock();
      const done = bucket(end);
      done.completed += 1;
      const code = String(status);
      add(done.codes, code);
      done.latency.recordValue(us(end - from));
      done.fromSend.recordValue(us(end - sentAt));
      if (byName) {
        const n = named(done, step.name);
        n.completed += 1;
        add(n.codes, code);
        n.latency.recordValue(us(end - from));
      }
      if (upstream) {
        add(done.upstreams, upstream);
        if (upstreamMs !== null) done.upstream.recordValue(us(upstreamMs));
      }
      if (text !== null) capture(text, step.captures, vu.vars);
      then(true, end);
    };
    const failed = (code) => {
      pending -= 1;
      const end = clock();
      failure(bucket(end), step, code);
      then(false, end);
    };
    const parts = step.parts(vu.vars);
    if (vu.conn !== undefined) {
      const conn = vu.conn ?? engine.pooled(urls[turn++ % urls.length]);
      engine.send(conn, step, parts, sentAt, answered, failed);
      return;
    }
    nodeSend(step, urls[turn++ % urls.length], parts, answered, failed);
  }

  // A request on a connection of its own (node:http, as Artillery's one-request users).
  function nodeSend(step, url, { path, headers, body }, answered, failed) {
    let settled = false;
    const once =
      (fn) =>
      (...args) => {
        if (settled) return;
        settled = true;
        fn(...args);
      };
    const ok = once(answered);
    const ko = once(failed);
    const req = lib.request(
      { hostname: url.hostname, port: url.port, path, method: step.method, agent: false, headers },
      (res) => {
        let text = step.captures ? '' : null;
        if (text === null) res.on('data', noop);
        else {
          res.setEncoding('utf8');
          res.on('data', (c) => {
            text += c;
            // A body kept for a capture is bounded (lab/scenario/limits.js).
            if (text.length > LIMITS.capturedBodyBytes) {
              ko('EBODYSIZE');
              req.destroy();
            }
          });
        }
        res.on('end', () =>
          ok({
            status: res.statusCode,
            upstream: res.headers['x-lab-upstream'] || null,
            upstreamMs: upstreamTime(res.headers['x-lab-upstream-ms'] ?? null, res.headers['x-lab-upstream-s'] ?? null),
            text,
          }),
        );
        res.on('error', (err) => ko(err.code || 'ERESPONSE'));
      },
    );
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
    req.on('error', (err) => ko(err.code || 'EREQUEST'));
    req.end(body);
  }
  function failure(b, step, code) {
    add(b.errors, code);
    if (byName) add(named(b, step.name).errors, code);
  }

  // A virtual user: its flow's steps one after the other from `due`; a request that fails
  // (no answer) ends it, as Artillery's virtual users end. done(ok) when it is over.
  // (A one-request flow's virtual users are its requests: counted as such, the hot path of
  // the catalogue kept as lean as before flows.)
  const countVus = flows.multi;
  function runVu(due, done, vu = { vars: flows.vars(), ...connectionFor(false) }) {
    if (!countVus) return runSteps(flows.pick().steps, 0, vu, due, done);
    bucket(due).arrivals += 1;
    const finish = (ok, at) => {
      if (vu.owned) engine.release(vu.conn);
      const b = bucket(at ?? clock());
      // (CUT: a closed loop's virtual user stopped by the run's end mid-flow, neither.)
      if (ok === true) b.vusCompleted += 1;
      else if (ok !== CUT) b.vusFailed += 1;
      done(ok);
    };
    return runSteps(flows.pick().steps, 0, vu, due, finish);
  }
  // The closed loop's end: a flow still running then (a loop of thousands) stops at its
  // next step, so the run ends at --duration (it once ran on for as long as the loop did).
  const closedEnd = mode === 'closed' && durationMs !== undefined ? t0 + durationMs : Infinity;
  function runSteps(steps, i, vu, due, done) {
    if (stopped) return done(false);
    if (i < steps.length && clock() >= closedEnd) return done(CUT);
    if (i >= steps.length) return done(true, due);
    const step = steps[i];
    if (step.kind === 'request') {
      return send(step, vu, due, (ok, end) => (ok ? runSteps(steps, i + 1, vu, end, done) : done(false, end)));
    }
    if (step.kind === 'think') {
      const next = due + step.ms;
      return setTimeout(() => runSteps(steps, i + 1, vu, next, done), Math.max(0, next - clock()));
    }
    // A loop: its steps `count` times, then on.
    let round = 0;
    const again = (ok, at = clock()) => {
      if (ok === CUT) return done(CUT);
      if (!ok) return done(false);
      if (round++ >= step.count) return runSteps(steps, i + 1, vu, at, done);
      return runSteps(step.steps, 0, vu, at, again);
    };
    return again(true, due);
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
        ...(countVus ? { arrivals: b.arrivals, vusCompleted: b.vusCompleted, vusFailed: b.vusFailed } : {}),
        codes: b.codes,
        errors: b.errors,
        pending,
        upstreams: b.upstreams,
        latency: encode(b.latency),
        fromSend: encode(b.fromSend),
        lag: encode(b.lag),
        upstream: encode(b.upstream),
        ...(b.requests ? { requests: encodeNamed(b.requests) } : {}),
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
  let running = 0;
  const vuDone = () => {
    running -= 1;
    if (next.done && armed === 0 && running === 0) finishWhenDrained();
  };
  function fire(due) {
    armed -= 1;
    if (stopped) return;
    running += 1;
    runVu(due, vuDone);
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
    else if (armed === 0 && running === 0) finishWhenDrained();
  }

  const ticker = setInterval(() => flush(false), 1000);
  let finished = false;
  function finish() {
    if (finished) return;
    finished = true;
    clearInterval(ticker);
    flush(true);
    port.postMessage({ type: 'end', ...(engine ? { connections: engine.stats.opened } : {}) });
    if (engine) engine.close();
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

  // Closed loop: this worker's connections, each a virtual user running the flow again as
  // soon as it ended, until its share of `requests` is sent or `durationMs` is over.
  function loops() {
    let budget = requests === undefined ? Infinity : Math.floor(requests / of) + (shard < requests % of ? 1 : 0);
    const end = durationMs === undefined ? Infinity : t0 + durationMs;
    let live = 0;
    // (A one-request flow spends one of the budget a virtual user; a longer one, a virtual
    // user's worth: --requests counts requests for the catalogue and flows alike, roughly.)
    // Each virtual user keeps its connection across its runs of the flow (with --keepalive;
    // --pipelining N puts N virtual users on each of the connections).
    const user = () => {
      // (Without --keepalive each run of the flow takes its own connection, in runVu.)
      const conn = keepalive ? connectionFor(true).conn : undefined;
      const loop = () => {
        if (stopped || budget <= 0 || clock() >= end) {
          live -= 1;
          if (live === 0) finishWhenDrained();
          return;
        }
        budget -= 1;
        runVu(clock(), loop, conn ? { vars: flows.vars(), conn, owned: false } : undefined);
      };
      return loop;
    };
    const mine = (Math.floor(connections / of) + (shard < connections % of ? 1 : 0)) * (keepalive ? pipelining : 1);
    live = mine;
    if (mine === 0) return finishWhenDrained();
    for (let i = 0; i < mine; i++) user()();
    return undefined;
  }

  const startIn = t0 - clock();
  // The open loop arms its first timers ahead of t0; the closed loop starts sending at t0.
  if (mode === 'open') setTimeout(arm, Math.max(0, startIn - HORIZON_MS / 2));
  else setTimeout(loops, Math.max(0, startIn));
}

const noop = () => {};
const CUT = 'cut';

// Each name's figures of one second, its histogram encoded as the totals' are.
function encodeNamed(requests) {
  const out = {};
  for (const [name, n] of Object.entries(requests)) {
    out[name] = {
      launched: n.launched,
      completed: n.completed,
      codes: n.codes,
      errors: n.errors,
      latency: encode(n.latency),
    };
  }
  return out;
}

if (!isMainThread) runShard(workerData, parentPort);

module.exports = runShard;
