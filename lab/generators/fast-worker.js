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
const { prepareFlows, CUT } = require('./vu/flow');
const { requestNames } = require('../scenario/model');
const { createEngine } = require('./keepalive');
const { upstreamTime, decoded } = require('./keepalive/response-parser');
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
  const origin = urls[0].origin;
  const flows = prepareFlows(data.model, {
    target: urls[0].href,
    processor: loadProcessor(data.model.processor),
    baseVars: data.baseVars || {},
  });
  // Per-name figures only when there is more than one name: the totals are the one name's.
  const byName = requestNames(data.model).length > 1;
  // Connections (./keepalive/): with --keepalive, the open loop's arrivals share a pool of
  // kept-alive ones and each of the closed loop's connections carries `pipelining` virtual
  // users for the run; without it, a one-request flow opens a connection per request
  // (node:http) and a longer flow keeps one for its virtual user.
  const pipelining = data.pipelining || 1;
  const engine = keepalive || flows.multi || data.hook ? createEngine({ pipelining, timeoutMs }) : null;
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
        skipped: 0,
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

  // One request of a virtual user, due at `due`; then(ok, endedAt, res | code) when it is
  // answered (ok; res: { status, headers, text }) or failed. On the keep-alive engine when the
  // virtual user has a connection there (or takes one from the pool) and the request goes to
  // its address, else on node:http with a connection of its own. Each is counted in the
  // second it went (launched) and the second it ended, by its step's name.
  function send(step, vu, due, parts, then) {
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
    const answered = (res) => {
      pending -= 1;
      const end = clock();
      const done = bucket(end);
      done.completed += 1;
      const code = String(res.status);
      add(done.codes, code);
      done.latency.recordValue(us(end - from));
      done.fromSend.recordValue(us(end - sentAt));
      if (byName) {
        const n = named(done, step.name);
        n.completed += 1;
        add(n.codes, code);
        n.latency.recordValue(us(end - from));
      }
      if (res.upstream) {
        add(done.upstreams, res.upstream);
        if (res.upstreamMs !== null) done.upstream.recordValue(us(res.upstreamMs));
      }
      then(true, end, res);
    };
    const failed = (code) => {
      pending -= 1;
      const end = clock();
      failure(bucket(end), step, code);
      then(false, end, code);
    };
    // The target's own requests go to its address (or, with several, to each in turn, as
    // clients of a NodePort service would), on the virtual user's connection when it has one;
    // a request to another address (an absolute URL, a redirect elsewhere) on its own.
    if (!parts.url || parts.url.origin === origin) {
      if (vu.conn !== undefined) {
        const conn = vu.conn ?? engine.pooled(urls[turn++ % urls.length]);
        engine.send(conn, step, parts, sentAt, answered, failed);
        return;
      }
      nodeSend(step, urls[turn++ % urls.length], parts, answered, failed);
      return;
    }
    nodeSend(step, parts.url, parts, answered, failed);
  }

  // A request on a connection of its own (node:http, as Artillery's one-request users).
  function nodeSend(step, url, { path, headers, body, method }, answered, failed) {
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
    const lib_ = url.protocol === 'https:' ? https : http;
    const req = lib_.request(
      { hostname: url.hostname, port: url.port, path, method: method || step.method, agent: false, headers },
      (res) => {
        const chunks = step.wantText ? [] : null;
        let size = 0;
        if (chunks === null) res.on('data', noop);
        else {
          res.on('data', (c) => {
            chunks.push(c);
            size += c.length;
            // A body kept for a capture is bounded (lab/scenario/limits.js).
            if (size > LIMITS.capturedBodyBytes) {
              ko('EBODYSIZE');
              req.destroy();
            }
          });
        }
        res.on('end', () =>
          ok({
            status: res.statusCode,
            headers: res.headers,
            upstream: res.headers['x-lab-upstream'] || null,
            upstreamMs: upstreamTime(res.headers['x-lab-upstream-ms'] ?? null, res.headers['x-lab-upstream-s'] ?? null),
            text: chunks ? decoded(Buffer.concat(chunks), res.headers['content-encoding']) : null,
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

  // The closed loop's end: a flow still running then (a loop of thousands) stops at its
  // next step, so the run ends at --duration (it once ran on for as long as the loop did).
  const closedEnd = mode === 'closed' && durationMs !== undefined ? t0 + durationMs : Infinity;
  // What the flows' interpreter (./vu/flow.js) asks of this thread.
  const io = {
    send,
    closedEnd,
    // A virtual user's own error (a failed capture, a hook's error): counted as Artillery
    // counts it, in the run's errors.
    vuError: (code, at) => add(bucket(at).errors, code),
    expected: (results, at) => {
      const b = bucket(at);
      b.expect ??= { ok: 0, failed: 0 };
      for (const r of results) b.expect[r.ok ? 'ok' : 'failed'] += 1;
    },
  };
  flows.ee.on('counter', (name, value = 1) => {
    const b = bucket(clock());
    b.custom ??= {};
    b.custom[name] = (b.custom[name] || 0) + Number(value);
  });

  // A virtual user: its flow's steps one after the other from `due` (./vu/flow.js); a request
  // that fails (no answer), a failed capture or check, ends it, as Artillery's virtual users
  // end. done(ok) when it is over. (A one-request flow's virtual users are its requests:
  // counted as such, the hot path of the catalogue kept as lean as before flows.)
  const countVus = flows.multi;
  function runVu(due, done, vu = null) {
    const ctx = flows.context();
    const c = vu ?? connectionFor(false);
    ctx.conn = c.conn;
    const flow = flows.pick();
    const finish = (ok, at) => {
      if (stopped && ok !== true) ok = false;
      if (c.owned) engine.release(c.conn);
      if (countVus) {
        const b = bucket(at ?? clock());
        // (CUT: a closed loop's virtual user stopped by the run's end mid-flow, neither.)
        if (ok === true) b.vusCompleted += 1;
        else if (ok !== CUT) b.vusFailed += 1;
      }
      done(ok);
    };
    if (countVus) bucket(due).arrivals += 1;
    if (stopped) return finish(false, clock());
    return flows.run(flow.steps, ctx, due, io, finish, flow);
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
        ...(b.skipped ? { vusSkipped: b.skipped } : {}),
        ...(b.expect ? { expect: b.expect } : {}),
        ...(b.custom ? { custom: b.custom } : {}),
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
  // A phase's maxVusers, this thread's share of it: an arrival while that many of its
  // virtual users run is skipped (and counted), as Artillery skips it.
  const caps = (phases || []).map((ph) =>
    ph.maxVusers !== undefined ? Math.floor(ph.maxVusers / of) + (shard < ph.maxVusers % of ? 1 : 0) : Infinity,
  );
  function fire(due, phase) {
    armed -= 1;
    if (stopped) return;
    if (running >= caps[phase]) {
      bucket(due).skipped += 1;
      if (next.done && armed === 0 && running === 0) finishWhenDrained();
      return;
    }
    running += 1;
    runVu(due, vuDone);
  }
  function arm() {
    if (stopped) return;
    const horizon = clock() + HORIZON_MS;
    while (!next.done && t0 + next.value.at <= horizon) {
      const due = t0 + next.value.at;
      armed += 1;
      setTimeout(fire, Math.max(0, due - clock()), due, next.value.phase);
      next = schedule.next();
    }
    if (!next.done) setTimeout(arm, HORIZON_MS / 2);
    else if (armed === 0 && running === 0) finishWhenDrained();
  }

  // A before or after section (data.hook): one virtual user of its steps, now, on its own;
  // its variables come back for every virtual user of the run (Artillery's own way), and
  // its requests are not the run's (Artillery does not count them either).
  if (data.hook) {
    const steps = data.hook === 'before' ? flows.before : flows.after;
    const ctx = flows.context();
    ctx.conn = engine.connection(urls[0]);
    const t = clock();
    flows.run(steps, ctx, t, { ...io, closedEnd: Infinity }, (ok, at, code) => {
      if (engine) engine.close();
      // (The process's environment is every virtual user's own: not sent back.)
      const vars = { ...ctx.vars };
      delete vars.$processEnvironment;
      delete vars.$env;
      port.postMessage({ type: 'hook', ok: ok === true, code: code ?? null, vars: JSON.parse(JSON.stringify(vars)) });
    });
    return;
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
        runVu(clock(), loop, conn ? { conn, owned: false } : undefined);
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

// The script's processor (config.processor), loaded in this thread: its functions run here,
// with Artillery's signatures (./vu/flow.js). None: an empty one (a function step then
// counts Artillery's "Undefined function" error).
function loadProcessor(file) {
  if (!file) return {};
  return require(file);
}

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
