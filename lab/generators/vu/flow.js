'use strict';

const path = require('node:path');
const querystring = require('node:querystring');
const { EventEmitter } = require('node:events');
const ms = require('ms');
const { template, hasTemplate, funcsFor } = require('../../scenario/template');
const { captureOrMatch } = require('./checks');
const { judge } = require('./expect');
const { rowPicker } = require('../../scenario/payload');
const { pathPicker } = require('../../../artillery/objects');
const { LIMITS } = require('../../scenario/limits');
const { runLoop, runParallel, CUT } = require('./control');

// The steps that hold other steps (./control.js), by kind.
const CONTROL = { loop: runLoop, parallel: runParallel };
const { multipart } = require('./form-data');

// A scenario model's flows as the lab's engines run them (lab/generators/fast-worker.js),
// with the semantics of Artillery's HTTP engine (its engine_http), so that a script sends
// the same requests whichever generator runs it (checked request by request by
// test/conformance/): a virtual user's variables (payload rows, then config.variables, which
// win), a cookie jar per virtual user (started by the first Set-Cookie, or by a default
// cookie), Artillery's default headers and what its HTTP client adds, redirects followed
// (each hop a request; 303 turns a POST into a GET), captures and matches that fail the
// virtual user when they fail, the expect plugin's checks, basic auth, ifTrue, log steps,
// loops with count, over and whileTrue, and processor functions (beforeRequest,
// afterResponse, function steps, onError) with Artillery's signatures.
//
// A request is prepared once: what holds no template and no hook is rendered then, and its
// bytes kept (the catalogue's one request always), so the hot path stays as it was.
//
// The engine gives `io`:
//   send(step, vu, due, parts, then(ok, endAt, res|code))   one request on the wire
//   vuError(code, at)                                         a virtual user's error
//   custom(kind, name, value)                                 a processor's own metric
//   expected(results)                                         the expect plugin's checks
//   closedEnd                                                 a closed loop's end (ms) or Infinity
const ARTILLERY_UA = 'Artillery (https://artillery.io)';
// What Artillery's HTTP client (got: 11 in Artillery 2.0.21, 14 in 2.0.34) adds: its own user
// agent when the script's default headers name none, and the encodings it decompresses (got 14
// adds zstd where Node has it, as the lab's Node 24 does; the lab decompresses it too:
// lab/generators/keepalive/response-parser.js).
const CLIENT_UA = 'got (https://github.com/sindresorhus/got)';
const ACCEPT_ENCODING = ['gzip', 'deflate', 'br', ...(typeof process.versions.zstd === 'string' ? ['zstd'] : [])].join(
  ', ',
);
const REDIRECTS = new Set([300, 301, 302, 303, 304, 307, 308]);
const MAX_REDIRECTS = 10;
const EMPTY_LENGTH = new Set(['POST', 'PUT', 'PATCH']);
const noop = () => {};

const lowKeys = (h) => Object.fromEntries(Object.entries(h || {}).map(([k, v]) => [k.toLowerCase(), v]));

// The flows of one model, prepared once, and the interpreter that runs them: one object per
// worker, its methods the steps of a virtual user (run, loop, request, send, hop, answered).
// model: lab/scenario/model.js; o: { target (base URL text), random, baseVars (a before
// section's), processor (its loaded module, or null), log }
class Flows {
  constructor(model, o = {}) {
    this.model = model;
    // (Where a formData's fromFile is read: the script's folder, as Artillery reads it.)
    this.scriptDir = model.source?.file ? path.dirname(model.source.file) : process.cwd();
    this.o = o;
    this.random = o.random || Math.random;
    this.base = String(o.target || '').replace(/\/$/, '');
    this.http = model.http || {};
    this.defaults = this.http.defaultHeaders || { 'user-agent': ARTILLERY_UA };
    this.processor = o.processor || {};
    this.ee = new EventEmitter();
    this.pickers = (model.payload || []).map((p) => rowPicker(p, this.random));
    this.variables = Object.entries(model.variables || {});
    this.withJar = Boolean(this.http.defaultCookie);
    this.hasScenarioHooks = (model.flows || []).some((f) => (f.hooks?.afterResponse || []).length);
    this.uid = 0;
    this.flows = model.flows.map((f) => ({
      name: f.name,
      steps: this.prepare(f.steps),
      hooks: f.hooks || {},
      // (A ws flow's: its socket is opened before it, lab/generators/fast-worker.js; a socketio
      // flow's: its options.)
      ...(f.engine ? { engine: f.engine, connect: f.connect ?? null, socketio: f.socketio ?? null } : {}),
    }));
    const total = model.flows.reduce((a, f) => a + f.weight, 0);
    let sum = 0;
    this.cumulative = model.flows.map((f) => (sum += f.weight / total));
  }

  prepare(steps) {
    return steps.map((s) => this.prepareStep(s));
  }

  prepareStep(s) {
    if (s.request) return this.prepareRequest(s.request);
    if (s.think !== undefined) {
      return { kind: 'think', ms: typeof s.think === 'number' ? s.think * 1000 : null, spec: s.think };
    }
    if (s.loop) return { kind: 'loop', ...s.loop, steps: this.prepare(s.loop.steps) };
    if (s.parallel) return { kind: 'parallel', limit: s.parallel.limit, steps: this.prepare(s.parallel.steps) };
    if (s.ws) {
      const sends = s.ws.payload !== undefined;
      const checks = s.ws.capture.length + s.ws.match.length > 0;
      return { kind: 'ws', name: sends ? 'WS send' : 'WS wait', sends, checks, ...s.ws };
    }
    if (s.sio) {
      const e = s.sio.emit;
      return { kind: 'sio', name: `emit ${Array.isArray(e) ? e[0] : e.channel}`, ...s.sio };
    }
    if (s.log !== undefined) return { kind: 'log', text: s.log };
    return { kind: 'function', name: s.function };
  }

  prepareRequest(r) {
    const hooks = (r.beforeRequest || []).length > 0;
    const templated =
      hasTemplate(r.url) ||
      hasTemplate(r.headers) ||
      hasTemplate(this.defaults) ||
      hasTemplate(r.json) ||
      hasTemplate(r.body) ||
      hasTemplate(r.query) ||
      hasTemplate(r.form) ||
      hasTemplate(r.formData) ||
      hasTemplate(r.auth);
    const expecting = Boolean(this.model.expect);
    const after = (r.afterResponse || []).length > 0 || this.hasScenarioHooks;
    const checks = (r.capture?.length || 0) + (r.match?.length || 0) > 0;
    const step = {
      kind: 'request',
      name: r.name,
      method: r.method,
      r,
      gzip: r.gzip !== false,
      followRedirect: r.followRedirect !== false,
      checks,
      // What the answer must carry back: its text (captures, matches, checks, hooks), its
      // headers (a header capture, the checks, hooks).
      wantText: checks || expecting || after,
      wantHeaders: expecting || after || (r.capture || []).some((c) => c.header !== undefined),
      condition: r.ifTrue !== undefined ? condition(this.processor, r.ifTrue) : null,
      objects: r.objects ? pathPicker(r.url, r.objects) : null,
      fixed: null,
    };
    if (!templated && !hooks) step.fixed = { ...this.build(step, r, null), fixed: true };
    return step;
  }

  // The request's parts for a virtual user's context (null: one that holds no template).
  // rp: the request's own fields (the step's, or as beforeRequest hooks left them).
  build(step, rp, ctx) {
    const t = (v) => (ctx ? template(v, ctx) : v);
    const rawUrl = t(rp.url);
    const url = new URL(
      typeof rawUrl === 'string' && rawUrl.startsWith('/') ? `${this.base}${rawUrl}` : String(rawUrl),
    );
    if (step.r.query) url.search = new URLSearchParams(querystring.stringify(t(step.r.query))).toString();
    const headers = {};
    const named = { ...lowKeys(this.defaults), ...lowKeys(step.r.headers), ...lowKeys(rp.headers) };
    for (const [k, v] of Object.entries(named)) {
      const value = t(v);
      if (value !== undefined && value !== null) headers[k] = String(value);
    }
    const body = bodyOf(rp, t, headers, this.scriptDir);
    if (rp.auth) {
      headers.authorization = `Basic ${Buffer.from(`${t(rp.auth.user) ?? ''}:${t(rp.auth.pass) ?? ''}`).toString('base64')}`;
    }
    headers['user-agent'] ??= CLIENT_UA;
    if (step.gzip) headers['accept-encoding'] ??= ACCEPT_ENCODING;
    // (A body's length; a POST, PUT or PATCH without one says 0, as Node's client does.)
    if (body) headers['content-length'] = String(body.length);
    else if (EMPTY_LENGTH.has(step.method)) headers['content-length'] = '0';
    return { url, path: `${url.pathname}${url.search}`, headers, body };
  }

  // A new virtual user: its variables as Artillery makes them (the run's, a before section's,
  // a payload row, then config.variables), its functions, its cookie jar when it starts with one.
  context() {
    const random = this.random;
    const vars = {
      target: this.base,
      $environment: undefined,
      $processEnvironment: process.env,
      $env: process.env,
      ...(this.o.baseVars || {}),
    };
    for (const p of this.pickers) Object.assign(vars, p());
    for (const [k, v] of this.variables) vars[k] = Array.isArray(v) ? v[Math.floor(random() * v.length)] : v;
    const id = `${process.pid}-${++this.uid}-${Math.floor(random() * 1e9)}`;
    vars.$uuid = id;
    const ctx = { vars, funcs: funcsFor(vars), _uid: id, _successCount: 0, _jar: null, _enableCookieJar: this.withJar };
    if (this.withJar) this.jarOf(ctx);
    return ctx;
  }

  jarOf(ctx) {
    if (!ctx._jar) {
      CookieJar ??= require('tough-cookie').CookieJar;
      ctx._jar = new CookieJar(null, this.http.cookieJarOptions || {});
    }
    return ctx._jar;
  }

  pick() {
    const flows = this.flows;
    if (flows.length === 1) return flows[0];
    const u = this.random();
    return flows[this.cumulative.findIndex((c) => u < c)] || flows[flows.length - 1];
  }

  // Runs `steps` for the virtual user `ctx` from `due`; done(ok | CUT, at, code).
  run(steps, ctx, due, io, done, flow = null) {
    const hooks = flow?.hooks || {};
    const next = (i, at) => {
      if (i >= steps.length) return done(true, at);
      if (at >= io.closedEnd || Date.now() >= io.closedEnd) return done(CUT, at);
      const step = steps[i];
      const fail = (code, end, rp) => this.onError(hooks, ctx, code, rp, () => done(false, end, code));
      // (A virtual user's own failure, not one of the wire, which the engine counted.)
      const own = (code, end, rp) => {
        io.vuError(code, end);
        fail(code, end, rp);
      };
      switch (step.kind) {
        case 'request':
          return this.request(step, ctx, at, io, hooks, (ok, end, code, rp, wire) =>
            ok ? next(i + 1, end) : wire ? fail(code, end, rp) : own(code, end, rp),
          );
        case 'think': {
          const waitMs = thinkMs(step, ctx);
          return setTimeout(() => next(i + 1, at + waitMs), Math.max(0, at + waitMs - Date.now()));
        }
        case 'loop':
        case 'parallel':
          return CONTROL[step.kind](
            this,
            step,
            ctx,
            at,
            io,
            (ok, end, code) => (ok === true ? next(i + 1, end) : done(ok, end, code)),
            flow,
          );
        case 'ws':
          return this.wsStep(step, ctx, at, io, (ok, end, code, wire) =>
            ok ? next(i + 1, end) : wire ? fail(code, end) : own(code, end),
          );
        // (A socketio flow's emit, sent, waited for and counted by the engine, which counted
        // a failure too: ./socketio.js.)
        case 'sio':
          return io.sioEmit(step, ctx, at, (ok, end, code) => (ok ? next(i + 1, end) : fail(code, end)));
        case 'log':
          (this.o.log || console.log)(template(step.text, ctx));
          return next(i + 1, at);
        default:
          return this.callFunction(step.name, ctx, io, (err) =>
            err ? own(err.code || err.message, Date.now()) : next(i + 1, Date.now()),
          );
      }
    };
    next(0, due);
  }

  // The flow's onError hooks, then `then`.
  onError(hooks, ctx, code, rp, then) {
    const names = hooks.onError || [];
    if (!names.length) return then();
    return series(
      names,
      (name, cb) => {
        const fn = this.processor[name];
        if (typeof fn !== 'function') return cb();
        return invoke(fn, [new Error(String(code)), rp || {}, ctx, this.ee], cb);
      },
      then,
    );
  }

  // A ws flow's message, as Artillery's ws engine sends it: its payload rendered (a mapping
  // as JSON, anything else as text), sent on the virtual user's socket (io.wsSend); with a
  // capture or match, the next message read as an answer (JSON when it parses, else its
  // text) and checked as an HTTP answer is. done(ok, end, code).
  wsStep(step, ctx, due, io, done) {
    let payload;
    if (step.sends) {
      payload = template(step.payload, ctx);
      payload = payload !== null && typeof payload === 'object' ? JSON.stringify(payload) : String(payload ?? '');
    }
    io.wsSend(step, ctx, due, payload, step.checks, (ok, end, answer) => {
      if (!ok) return done(false, end, answer, true);
      if (!step.checks) return done(true, end);
      const checked = captureOrMatch(
        { capture: step.capture, match: step.match },
        { status: 200, headers: {}, text: answer },
        ctx,
        {
          strictDefault: true,
        },
      );
      return checked.failed ? done(false, end, 'Failed capture or match') : done(true, end);
    });
  }

  // A function step: Artillery's (context, events, done), or an async one.
  callFunction(name, ctx, io, then) {
    const fn = this.processor[name];
    if (typeof fn !== 'function') {
      // (Artillery counts the error and goes on with the flow.)
      io.vuError(`Undefined function "${name}"`, Date.now());
      return then(null);
    }
    return invoke(fn, [ctx, this.ee], then);
  }

  // One request step, its redirects and what follows its answer.
  request(step, ctx, due, io, hooks, done) {
    // A request's probability first, then its ifTrue, as Artillery's HTTP engine checks them.
    if (step.r.probability !== undefined && !(Math.floor(this.random() * 101) < step.r.probability))
      return done(true, due);
    if (step.condition && !step.condition(ctx.vars)) return done(true, due);
    const names = [...(hooks.beforeRequest || []), ...(step.r.beforeRequest || [])];
    if (!names.length) return this.send(step, ctx, due, io, hooks, null, done);
    const rp = this.requestParams(step, due);
    return series(
      names,
      (name, cb) => {
        const fn = this.processor[template(name, ctx)];
        return typeof fn === 'function' ? invoke(fn, [rp, ctx, this.ee], cb) : cb();
      },
      (err) =>
        err ? done(false, Date.now(), err.code || err.message, rp) : this.send(step, ctx, due, io, hooks, rp, done),
    );
  }

  // The request as a processor sees it (Artillery's requestParams: its fields, the url before
  // templates, the method, the time-out).
  requestParams(step, due) {
    const r = step.r;
    const { extra, ...fields } = r;
    return {
      ...JSON.parse(JSON.stringify({ ...fields, ...(extra || {}) })),
      url: r.url.startsWith('/') ? `${this.base}${r.url}` : r.url,
      method: r.method,
      timeout: (this.model.timeoutS || 10) * 1000,
      dueAt: due,
    };
  }

  send(step, ctx, due, io, hooks, rp, done) {
    let parts;
    try {
      parts = rp ? this.build(step, rp, ctx) : step.fixed ? step.fixed : this.build(step, step.r, ctx);
      if (step.objects) parts = { ...parts, path: step.objects(), fixed: false };
    } catch (err) {
      // (A URL that does not parse: Artillery fails the virtual user with "Invalid URL".)
      return done(false, due, err.code || 'ERR_INVALID_URL', rp);
    }
    const defaultCookie = this.http.defaultCookie;
    const useJar = ctx._enableCookieJar || Boolean(step.r.cookie) || Boolean(defaultCookie);
    if (step.r.cookie || defaultCookie) {
      const jar = this.jarOf(ctx);
      for (const [k, v] of Object.entries({ ...(defaultCookie || {}), ...(step.r.cookie || {}) })) {
        try {
          jar.setCookieSync(`${k}=${template(v, ctx)}`, parts.url.href);
        } catch {
          // (an invalid cookie: left out, as Artillery's jar leaves it)
        }
      }
    }
    this.hop(step, ctx, due, io, hooks, rp, parts, 0, done, useJar);
  }

  // useJar: the virtual user's cookies go with this request and its redirects when its jar
  // was started before it (a Set-Cookie seen, a default cookie) or it sets a cookie itself,
  // as Artillery hands its client the jar; a first Set-Cookie on a redirect is kept for the
  // requests after, not sent to the redirect's address.
  hop(step, ctx, due, io, hooks, rp, parts, redirects, done, useJar) {
    io.send(step, ctx, due, useJar ? withCookies(ctx, parts) : parts, (ok, end, res) => {
      if (!ok) return done(false, end, res, rp, true);
      ctx._successCount += 1;
      this.keepCookies(ctx, res, parts.url);
      const location = res.headers?.location;
      if (step.followRedirect && location && REDIRECTS.has(res.status)) {
        if (redirects >= MAX_REDIRECTS) return done(false, end, 'ERR_TOO_MANY_REDIRECTS', rp);
        const next = redirected(step, parts, res.status, location);
        return this.hop(step, ctx, end, io, hooks, rp, next, redirects + 1, done, useJar);
      }
      return this.answered(step, ctx, end, io, hooks, rp, parts, res, done);
    });
  }

  // Every Set-Cookie of an answer goes to the virtual user's jar (the first one starts it).
  keepCookies(ctx, res, url) {
    const set = res.headers?.['set-cookie'];
    if (!set) return;
    ctx._enableCookieJar = true;
    const jar = this.jarOf(ctx);
    for (const c of Array.isArray(set) ? set : [set]) {
      try {
        jar.setCookieSync(c, url.href);
      } catch {
        // (a cookie that does not parse: skipped, as Artillery skips it)
      }
    }
  }

  answered(step, ctx, end, io, hooks, rp, parts, res, done) {
    const http = this.http;
    const model = this.model;
    const checked = step.checks
      ? captureOrMatch({ capture: step.r.capture, match: step.r.match }, res, ctx, {
          strictDefault: http.strictCapture !== false,
        })
      : { failed: false };
    let expectError = null;
    if (model.expect) {
      const results = judge(step.r.expect, res, ctx, { expectDefault200: model.expect.expectDefault200 });
      io.expected(results, end);
      if (results.some((x) => !x.ok) && model.expect.reportFailuresAsErrors) {
        expectError = `Failed expectations for request ${parts.url.href}`;
      }
    }
    const names = [...(hooks.afterResponse || []), ...(step.r.afterResponse || [])];
    const finish = (err) => {
      if (err) return done(false, end, err.code || err.message, rp);
      if (checked.failed) return done(false, end, 'Failed capture or match', rp);
      if (expectError) return done(false, end, expectError, rp);
      return done(true, end);
    };
    if (!names.length) return finish(null);
    const params = rp || this.requestParams(step, end);
    const response = { statusCode: res.status, headers: res.headers || {}, body: res.text, url: parts.url.href };
    return series(
      names,
      (name, cb) => {
        const fn = this.processor[template(name, ctx)];
        return typeof fn === 'function' ? invoke(fn, [params, response, ctx, this.ee], cb) : cb();
      },
      finish,
    );
  }
}

let CookieJar = null;

// What the engine asks of a model's flows (lab/generators/fast-worker.js).
function prepareFlows(model, o = {}) {
  const f = new Flows(model, o);
  return {
    flows: f.flows,
    before: model.before ? f.prepare(model.before.steps) : null,
    after: model.after ? f.prepare(model.after.steps) : null,
    ee: f.ee,
    context: () => f.context(),
    run: (steps, ctx, due, io, done, flow) => f.run(steps, ctx, due, io, done, flow),
    pick: () => f.pick(),
    // Whether a virtual user is more than one fixed request (it then has a connection and a
    // context of its own).
    multi: model.flows.some((fl) => fl.steps.length > 1 || fl.steps.some((s) => !s.request)),
  };
}

// The request's body from its json, body or form (a form or json one names its type when
// the headers do not).
function bodyOf(rp, t, headers, scriptDir) {
  if (rp.json !== undefined && rp.json !== null && rp.json !== false && rp.json !== '') {
    headers['content-type'] ??= 'application/json';
    return Buffer.from(JSON.stringify(t(rp.json)));
  }
  if (rp.body !== undefined && rp.body !== null && rp.body !== '') {
    const b = t(rp.body);
    return Buffer.from(typeof b === 'string' ? b : JSON.stringify(b));
  }
  if (rp.formData) {
    const { body, contentType } = multipart(rp.formData, t, scriptDir);
    headers['content-type'] ??= contentType;
    return body;
  }
  if (rp.form) {
    const form = Object.fromEntries(Object.entries(rp.form).map(([k, v]) => [k, t(v)]));
    headers['content-type'] ??= 'application/x-www-form-urlencoded';
    return Buffer.from(new URLSearchParams(form).toString());
  }
  return null;
}

// ifTrue: a processor function of that name, else an expression on the variables (filtrex,
// as Artillery's); an expression that does not compile lets the request go, as there.
function condition(processor, text) {
  if (typeof processor[text] === 'function') return (vars) => processor[text](vars);
  try {
    const f = require('filtrex')(text);
    return (vars) => {
      try {
        return f(vars);
      } catch {
        return 1;
      }
    };
  } catch {
    return () => 1;
  }
}

function thinkMs(step, ctx) {
  if (step.ms !== null) return step.ms;
  const v = template(step.spec, ctx);
  const n = Number(v);
  const waitMs = Number.isInteger(n) ? n * 1000 : typeof v === 'string' ? ms(v) : n * 1000;
  return Number.isFinite(waitMs) && waitMs >= 0 ? Math.min(waitMs, LIMITS.thinkS * 1000) : 0;
}

function withCookies(ctx, parts) {
  if (!ctx._jar) return parts;
  const cookie = ctx._jar.getCookieStringSync(parts.url.href);
  if (!cookie) return parts;
  return { ...parts, headers: { ...parts.headers, cookie }, fixed: false };
}

// The next hop as got 11 makes it: the same method and body, but a 303 turns a POST into a
// GET without a body; to another host the cookie, authorization and host headers go.
function redirected(step, parts, status, location) {
  const url = new URL(location, parts.url);
  const headers = { ...parts.headers };
  let { body } = parts;
  let method = parts.method || step.method;
  if (status === 303 && method !== 'GET' && method !== 'HEAD') {
    method = 'GET';
    body = null;
    delete headers['content-length'];
  }
  if (url.host !== parts.url.host) {
    delete headers.cookie;
    delete headers.authorization;
    delete headers.host;
  }
  delete headers.cookie; // (the jar's, for the new address, is added when it is sent)
  return { url, path: `${url.pathname}${url.search}`, headers, body, method };
}

// A processor function with Artillery's calling conventions: a callback last, or a promise.
function invoke(fn, args, cb) {
  let called = false;
  const once = (err) => {
    if (called) return;
    called = true;
    cb(err || null);
  };
  try {
    const out = fn(...args, once);
    if (out && typeof out.then === 'function')
      out.then(
        () => once(null),
        (err) => once(err || new Error('rejected')),
      );
  } catch (err) {
    once(err);
  }
}

// Each name in turn (fn(name, cb)), then(err) once all went or one failed.
function series(names, fn, then) {
  let i = 0;
  const step = (err) => {
    if (err || i >= names.length) return then(err || null);
    const name = names[i++];
    return fn(name, step);
  };
  step(null);
}

module.exports = { prepareFlows, CUT, ARTILLERY_UA, CLIENT_UA, ACCEPT_ENCODING, invoke, noop };
