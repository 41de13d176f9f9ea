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
const { monitorEventLoopDelay } = require('node:perf_hooks');
const { isMainThread, parentPort, workerData } = require('node:worker_threads');
const { arrivals, phaseOffsets } = require('./schedule');
const { Seconds, add } = require('./seconds');
const { pathToFileURL } = require('node:url');
const { prepareFlows, CUT } = require('./vu/flow');
const { closeSockets } = require('./vu/socketio');
const { wsConnect, wsSend, sioOptions, sioSocket, sioEmit } = require('./message-engines');
const { loadProcessor } = require('./vu/processor');
const { requestNames } = require('../scenario/model');
const { createEngine } = require('./keepalive');
const { tlsClient } = require('./tls-client');
const { upstreamTime, decoded } = require('./keepalive/response-parser');
const { LIMITS } = require('../scenario/limits');

const clock = () => performance.timeOrigin + performance.now();
const us = (ms) => Math.max(1, Math.round(ms * 1000));
const noop = () => {};
// The open loop arms each arrival's timer this far ahead. One timer per arrival fires within
// about a millisecond either side of its due time; a single timer re-armed for the next
// arrival fired 0.6 ms late at the median (Node rounds a wait under 1 ms up to 1 ms), which
// read /ping's 0.7 ms as 1.5 ms.
const HORIZON_MS = 250;

// Runs one shard of the plan; `port` carries its messages (a thread's parentPort, or an
// in-process pair when the generator runs a single shard on its main thread).
function runShard(data, port) {
  const file = data.model.processor;
  if (!file?.endsWith('.mjs'))
    return new Shard(data, port, loadProcessor(file, { external: data.model.bundlingExternal || [] })).start();
  // An ES module is imported, which only an async step can do: the shard starts once it is in,
  // a stop asked meanwhile kept for it; one that fails to load fails the thread, as a
  // require that throws does.
  const held = [];
  let deliver = (m) => held.push(m);
  port.on('message', (m) => deliver(m));
  const relay = {
    postMessage: (m) => port.postMessage(m),
    on: (event, fn) => {
      if (event !== 'message') return port.on(event, fn);
      deliver = fn;
      return held.splice(0).forEach(fn);
    },
  };
  return import(pathToFileURL(file).href).then(
    (mod) => new Shard(data, relay, { ...mod }).start(),
    (err) =>
      process.nextTick(() => {
        throw err;
      }),
  );
}

// The loop's lateness, in ms over the sampling interval: { p50, p99 } (about 0.2 ms on an idle
// loop; the interval itself is not lateness).
const LOOP_RESOLUTION_MS = 10;
function loopLate(h) {
  h.disable();
  if (!h.count) return null;
  const over = (q) => Math.round(Math.max(0, h.percentile(q) / 1e6 - LOOP_RESOLUTION_MS) * 10) / 10;
  return { p50: over(50), p99: over(99) };
}

// This thread's share of the run, in steps: the flows prepared (constructor), then a before
// or after section (runHook), or the open loop's arrivals (openLoop) or the closed loop's
// connections (closedLoop), each virtual user (runVu) sending its requests (send), every
// second posted (flush), and the end (finish).
class Shard {
  constructor(data, port, processor) {
    this.data = data;
    this.port = port;
    const { mode, keepalive, timeoutMs, durationMs, t0 } = data;
    // One target, or several (no balancer: the generator spreads its requests over the
    // replicas itself, round-robin, as clients of a NodePort service would).
    this.urls = (data.targets && data.targets.length ? data.targets : [data.target]).map((t) => new URL(t));
    this.turn = data.shard;
    this.origin = this.urls[0].origin;
    this.flows = prepareFlows(data.model, {
      target: this.urls[0].href,
      processor,
      baseVars: data.baseVars || {},
    });
    // Connections (./keepalive/): with --keepalive, the open loop's arrivals share a pool of
    // kept-alive ones and each of the closed loop's connections carries `pipelining` virtual
    // users for the run; without it, a one-request flow opens a connection per request and a
    // longer flow keeps one for its virtual user.
    this.pipelining = data.pipelining || data.tls?.streams || 1;
    // An https:// target (--tls): every connection checked against the run's CA, timed and
    // resumed (./tls-client.js); --http2 puts each virtual user's requests on a session of
    // its own as streams (the engine's HTTP/2 connections, ./keepalive/h2-connection.js).
    this.tls = data.tls && this.urls.some((u) => u.protocol === 'https:') ? this.tlsOf(data.tls) : null;
    // (Every request to the target goes on the engine's connections: a one-request flow
    // without --keepalive on a connection of its own that the server closes after the answer,
    // the engine's bytes and parser in place of node:http's client objects, which cost most
    // of a new connection's CPU: bench/engines.js. node:http sends what goes elsewhere.)
    this.engine = createEngine({ pipelining: this.pipelining, timeoutMs, tls: this.tls });
    this.oneShot = !keepalive && !this.flows.multi && !data.hook && !this.tls?.http2;
    // The closed loop's connections are each a virtual user's for the run: kept alive with
    // --keepalive, and always over HTTP/2 (a session whose --streams N carry its requests).
    this.keptAlive = Boolean(keepalive || (mode === 'closed' && this.tls?.http2));
    this.vuConnections = [];
    this.vuCount = 0;
    // (A one-request flow's virtual users are its requests: counted as such, the hot path of
    // the catalogue kept as lean as before flows.)
    this.countVus = this.flows.multi;
    // Per-name figures only when there is more than one name: the totals are the one name's.
    this.byName = requestNames(data.model).length > 1;
    this.seconds = new Seconds({ t0, byName: this.byName, countVus: this.countVus });
    this.pending = 0;
    this.stopped = false;
    this.finished = false;
    this.open = mode === 'open';
    this.ticker = null;
    this.io = this.interpreterIo(mode === 'closed' && durationMs !== undefined ? t0 + durationMs : Infinity);
    // (The run's end, where a loop without end stops: the closed loop's, or the last phase's,
    // the closed loop's phase lasting the script's length when only --requests bounds it.)
    this.io.runEnd = Number.isFinite(this.io.closedEnd)
      ? this.io.closedEnd
      : t0 + phaseOffsets(data.phases || []).totalMs;
  }

  tlsOf(o) {
    return {
      client: tlsClient({ ca: o.ca, insecure: o.insecure, resume: o.resume, alpn: o.http2 ? ['h2'] : ['http/1.1'] }),
      onHandshake: (info) => this.seconds.handshake(clock(), info),
      http2: Boolean(o.http2),
    };
  }

  // What the flows' interpreter (./vu/flow.js) asks of this thread. closedEnd: the closed
  // loop's end; a flow still running then (a loop of thousands) stops at its next step, so
  // the run ends at --duration (it once ran on for as long as the loop did).
  interpreterIo(closedEnd) {
    const seconds = this.seconds;
    this.flows.ee.on('counter', (name, value = 1) => {
      const b = seconds.at(clock());
      b.custom ??= {};
      b.custom[name] = (b.custom[name] || 0) + Number(value);
    });
    return {
      send: (step, vu, due, parts, then) => this.send(step, vu, due, parts, then),
      wsSend: (step, vu, due, payload, waits, then) => wsSend(this, step, vu, due, payload, waits, then),
      sioEmit: (step, vu, due, then) => sioEmit(this, step, vu, due, then),
      closedEnd,
      // A virtual user's own error (a failed capture, a hook's error): counted as Artillery
      // counts it, in the run's errors.
      vuError: (code, at) => add(seconds.at(at).errors, code),
      expected: (results, at) => {
        const b = seconds.at(at);
        b.expect ??= { ok: 0, failed: 0 };
        for (const r of results) b.expect[r.ok ? 'ok' : 'failed'] += 1;
      },
    };
  }

  start() {
    const { data } = this;
    if (data.hook) return this.runHook();
    this.ticker = setInterval(() => this.flush(false), 1000);
    // How late this thread's loop ran (sampled every LOOP_RESOLUTION_MS): an answer that came
    // in is read, and its time taken, only when the loop gets to it, so a thread the machine
    // starves (or that blocks itself) adds that much to every time it measures.
    this.loop = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
    this.loop.enable();
    this.port.on('message', (m) => {
      if (m.type === 'stop' && !this.stopped) {
        this.stopped = true;
        this.finish();
      }
    });
    const startIn = data.t0 - clock();
    // The open loop arms its first timers ahead of t0; the closed loop starts sending at t0.
    if (this.open) {
      const arm = this.openLoop();
      setTimeout(arm, Math.max(0, startIn - HORIZON_MS / 2));
    } else setTimeout(() => this.closedLoop(), Math.max(0, startIn));
    return undefined;
  }

  // A virtual user's connection: null (the pool's, per request), or its own (`owned`:
  // released with it).
  connectionFor(closedLoop) {
    const { engine, urls } = this;
    if (this.data.keepalive && !closedLoop) return { conn: null, owned: false };
    if (this.keptAlive && closedLoop) {
      // The closed loop's connection i carries its virtual users i*N .. i*N+N-1.
      const i = Math.floor(this.vuCount++ / this.pipelining);
      if (!this.vuConnections[i]) this.vuConnections[i] = engine.connection(urls[i % urls.length]);
      return { conn: this.vuConnections[i], owned: false };
    }
    return { conn: engine.connection(urls[this.turn++ % urls.length], null, { oneShot: this.oneShot }), owned: true };
  }

  // One request of a virtual user, due at `due`; then(ok, endedAt, res | code) when it is
  // answered (ok; res: { status, headers, text }) or failed. On the keep-alive engine when the
  // virtual user has a connection there (or takes one from the pool) and the request goes to
  // its address, else on node:http with a connection of its own. Each is counted in the
  // second it went (launched) and the second it ended, by its step's name.
  send(step, vu, due, parts, then) {
    if (this.stopped) return;
    const seconds = this.seconds;
    const byName = this.byName;
    const { sentAt, from, b } = this.launch(due);
    if (byName) seconds.named(b, step.name).launched += 1;
    const answered = (res) => {
      this.pending -= 1;
      const end = clock();
      const done = seconds.at(end);
      done.completed += 1;
      const code = String(res.status);
      add(done.codes, code);
      done.latency.recordValue(us(end - from));
      done.fromSend.recordValue(us(end - sentAt));
      if (byName) {
        const n = seconds.named(done, step.name);
        n.completed += 1;
        add(n.codes, code);
        n.latency.recordValue(us(end - from));
      }
      if (res.firstAt !== undefined) seconds.firstByte(done, res.firstAt - sentAt);
      if (res.upstream) {
        add(done.upstreams, res.upstream);
        // (A 5xx the entry gave naming a replica: a rollout's dropped requests are told by it.)
        if (res.status >= 500) add((done.upstreamFails ??= {}), res.upstream);
        if (res.upstreamMs !== null) done.upstream.recordValue(us(res.upstreamMs));
      }
      then(true, end, res);
    };
    const failed = (code) => {
      this.pending -= 1;
      const end = clock();
      seconds.failure(seconds.at(end), step, code);
      then(false, end, code);
    };
    // The target's own requests go to its address (or, with several, to each in turn, as
    // clients of a NodePort service would), on the virtual user's connection when it has one;
    // a request to another address (an absolute URL, a redirect elsewhere) on its own.
    const { urls, engine } = this;
    const timeoutMs = this.data.timeoutMs;
    if (!parts.url || parts.url.origin === this.origin) {
      if (vu.conn !== undefined) {
        const conn = vu.conn ?? engine.pooled(urls[this.turn++ % urls.length]);
        engine.send(conn, step, parts, sentAt, answered, failed);
        return;
      }
      nodeSend(step, urls[this.turn++ % urls.length], parts, timeoutMs, answered, failed, this.tls);
      return;
    }
    nodeSend(step, parts.url, parts, timeoutMs, answered, failed, this.tls);
  }

  // A virtual user: its flow's steps one after the other from `due` (./vu/flow.js); a request
  // that fails (no answer), a failed capture or check, ends it, as Artillery's virtual users
  // end. done(ok) when it is over.
  runVu(due, done, vu = null) {
    const { flows, seconds } = this;
    const ctx = flows.context();
    const flow = flows.pick();
    // (A ws flow's virtual user has its WebSocket instead: wsConnect.)
    const c = flow.engine === 'ws' ? { conn: null, owned: false } : (vu ?? this.connectionFor(false));
    ctx.conn = c.conn;
    const finish = (ok, at) => {
      if (this.stopped && ok !== true) ok = false;
      if (c.owned) this.engine.release(c.conn);
      if (this.countVus) {
        const b = seconds.at(at ?? clock());
        // (CUT: a closed loop's virtual user stopped by the run's end mid-flow, neither.)
        if (ok === true) b.vusCompleted += 1;
        else if (ok !== CUT) b.vusFailed += 1;
      }
      done(ok);
    };
    if (this.countVus) seconds.at(due).arrivals += 1;
    if (this.stopped) return finish(false, clock());
    // (A socketio flow's virtual user connects to the default namespace first, and closes
    // every socket it opened after: ./vu/socketio.js.)
    if (flow.engine === 'socketio') {
      ctx._socketio = sioOptions(this, flow);
      return sioSocket(this, ctx, '', (ok, at) => {
        if (!ok) return finish(false, at);
        const after = (okFlow, end) => {
          closeSockets(ctx);
          finish(okFlow, end);
        };
        return flows.run(flow.steps, ctx, due, this.io, after, flow);
      });
    }
    if (flow.engine === 'ws')
      return wsConnect(this, ctx, flow, (ok, at) => {
        if (!ok) return finish(false, at);
        return flows.run(
          flow.steps,
          ctx,
          due,
          this.io,
          (okFlow, end) => {
            ctx.ws.close();
            finish(okFlow, end);
          },
          flow,
        );
      });
    return flows.run(flow.steps, ctx, due, this.io, finish, flow);
  }

  // A request (or a ws message) going now, due at `due`: counted in this second, its send lag
  // recorded, in flight. -> { sentAt, from (what its time is counted from), b (its second) }
  launch(due) {
    const sentAt = clock();
    // Timed from the due time, or from the send when a timer fired a little early (Node's
    // timers round to whole milliseconds either way): never crediting an early send.
    const from = Math.min(due, sentAt);
    const b = this.seconds.at(sentAt);
    b.launched += 1;
    // (The closed loop sends when it is due, by definition: no lag to record.)
    if (this.open) b.lag.recordValue(us(Math.max(0, sentAt - due)));
    this.pending += 1;
    return { sentAt, from, b };
  }

  flush(all) {
    this.seconds.flush(clock(), all, this.pending, (m) => this.port.postMessage(m));
  }

  // Open loop: the schedule's arrivals of this worker, each on a timer of its own armed
  // HORIZON_MS ahead. Returns the function that arms them.
  openLoop() {
    const { phases, shard, of, t0 } = this.data;
    const schedule = arrivals(phases, { shard, of });
    let next = schedule.next();
    let armed = 0;
    let running = 0;
    const over = () => next.done && armed === 0 && running === 0;
    const vuDone = () => {
      running -= 1;
      if (over()) this.finishWhenDrained();
    };
    // A phase's maxVusers, this thread's share of it: an arrival while that many of its
    // virtual users run is skipped (and counted), as Artillery skips it.
    const caps = (phases || []).map((ph) =>
      ph.maxVusers !== undefined ? Math.floor(ph.maxVusers / of) + (shard < ph.maxVusers % of ? 1 : 0) : Infinity,
    );
    const fire = (due, phase) => {
      armed -= 1;
      if (this.stopped) return;
      if (running >= caps[phase]) {
        this.seconds.at(due).skipped += 1;
        if (over()) this.finishWhenDrained();
        return;
      }
      running += 1;
      this.runVu(due, vuDone);
    };
    const arm = () => {
      if (this.stopped) return;
      const horizon = clock() + HORIZON_MS;
      while (!next.done && t0 + next.value.at <= horizon) {
        const due = t0 + next.value.at;
        armed += 1;
        setTimeout(fire, Math.max(0, due - clock()), due, next.value.phase);
        next = schedule.next();
      }
      if (!next.done) setTimeout(arm, HORIZON_MS / 2);
      else if (over()) this.finishWhenDrained();
    };
    return arm;
  }

  // Closed loop: this worker's connections, each a virtual user running the flow again as
  // soon as it ended, until its share of `requests` is sent or `durationMs` is over.
  closedLoop() {
    const { requests, durationMs, connections, shard, of, t0 } = this.data;
    const keepalive = this.keptAlive;
    let budget = requests === undefined ? Infinity : Math.floor(requests / of) + (shard < requests % of ? 1 : 0);
    const end = durationMs === undefined ? Infinity : t0 + durationMs;
    let live = 0;
    // (A one-request flow spends one of the budget a virtual user; a longer one, a virtual
    // user's worth: --requests counts requests for the catalogue and flows alike, roughly.)
    // Each virtual user keeps its connection across its runs of the flow (with --keepalive;
    // --pipelining N puts N virtual users on each of the connections).
    const user = () => {
      // (Without --keepalive each run of the flow takes its own connection, in runVu.)
      const conn = keepalive ? this.connectionFor(true).conn : undefined;
      const loop = () => {
        if (this.stopped || budget <= 0 || clock() >= end) {
          live -= 1;
          if (live === 0) this.finishWhenDrained();
          return;
        }
        budget -= 1;
        this.runVu(clock(), loop, conn ? { conn, owned: false } : undefined);
      };
      return loop;
    };
    const mine =
      (Math.floor(connections / of) + (shard < connections % of ? 1 : 0)) * (keepalive ? this.pipelining : 1);
    live = mine;
    if (mine === 0) return this.finishWhenDrained();
    for (let i = 0; i < mine; i++) user()();
    return undefined;
  }

  // A before or after section (data.hook): one virtual user of its steps, now, on its own;
  // its variables come back for every virtual user of the run (Artillery's own way), and
  // its requests are not the run's (Artillery does not count them either).
  runHook() {
    const { flows, engine, port } = this;
    const steps = this.data.hook === 'before' ? flows.before : flows.after;
    const ctx = flows.context();
    ctx.conn = engine.connection(this.urls[0]);
    flows.run(steps, ctx, clock(), { ...this.io, closedEnd: Infinity, runEnd: Infinity }, (ok, at, code) => {
      if (engine) engine.close();
      // (The process's environment is every virtual user's own: not sent back.)
      const vars = { ...ctx.vars };
      delete vars.$processEnvironment;
      delete vars.$env;
      port.postMessage({ type: 'hook', ok: ok === true, code: code ?? null, vars: JSON.parse(JSON.stringify(vars)) });
    });
  }

  finish() {
    if (this.finished) return;
    this.finished = true;
    clearInterval(this.ticker);
    this.flush(true);
    const { engine } = this;
    this.port.postMessage({
      type: 'end',
      ...(engine ? { connections: engine.stats.opened } : {}),
      ...(this.loop ? { loopLateMs: loopLate(this.loop) } : {}),
    });
    if (engine) engine.close();
  }

  finishWhenDrained() {
    const check = () => (this.pending === 0 || this.stopped ? this.finish() : setTimeout(check, 20));
    check();
  }
}

// A request on a connection of its own (node:http, as Artillery's one-request users); over
// TLS through the run's client (tls: checked, timed, resumed), its first byte timed.
function nodeSend(step, url, { path, headers, body, method }, timeoutMs, answered, failed, tls = null) {
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
  const secure = url.protocol === 'https:';
  const lib_ = secure ? https : http;
  // (No agent with createConnection: node:http uses the function only then; agent: false
  // would make an agent of its own and ignore it.)
  const how = secure && tls ? { createConnection: () => tls.client.connect(url, tls.onHandshake) } : { agent: false };
  let firstAt;
  const req = lib_.request(
    { hostname: url.hostname, port: url.port, path, method: method || step.method, headers, ...how },
    (res) => {
      if (secure) firstAt = performance.timeOrigin + performance.now();
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
          ...(firstAt !== undefined ? { firstAt } : {}),
        }),
      );
      res.on('error', (err) => ko(err.code || 'ERESPONSE'));
    },
  );
  req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error('timeout'), { code: 'ETIMEDOUT' })));
  req.on('error', (err) => ko(err.code || 'EREQUEST'));
  req.end(body);
}

if (!isMainThread) runShard(workerData, parentPort);

module.exports = runShard;
