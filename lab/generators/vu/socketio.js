'use strict';

const { isDeepStrictEqual: deepEqual } = require('node:util');
const { template } = require('../../scenario/template');
const { captureOrMatch } = require('./checks');

// A virtual user's Socket.IO as Artillery's socketio engine drives it (its int-core
// engine_socketio.js), on the same client library: a socket a namespace, opened on first use
// to the target plus the namespace with the script's socketio options (templated for the
// virtual user) and its tls settings, kept in context.sockets (a processor's function finds
// them there, as in Artillery: a '*' listener sees every event), closed after the flow. An
// emit's waiting and reading, with Artillery's rules (isValid, processResponse below), so
// that a script sends the same events and fails where Artillery fails it.

let io = null;
let wildcard = null;
function client() {
  if (!io) {
    io = require('socket.io-client');
    wildcard = require('socketio-wildcard')(io.Manager);
  }
  return io;
}

// The socket of `namespace` for the virtual user ctx: then(err, socket) once connected.
// o: { base (the target, no trailing slash), options (config.socketio and the scenario's),
// tls ({ rejectUnauthorized } or null) }
function socketOf(ctx, namespace, o, then) {
  ctx.sockets ??= {};
  if (ctx.sockets[namespace]) return then(null, ctx.sockets[namespace]);
  const options = { ...template(o.options || {}, ctx), ...(o.tls || {}) };
  let socket;
  try {
    socket = client()(o.base + namespace, options);
  } catch (err) {
    return then(err, null);
  }
  ctx.sockets[namespace] = socket;
  wildcard(socket);
  ctx.__receivedMessageCount ??= 0;
  socket.on('*', () => (ctx.__receivedMessageCount += 1));
  let called = false;
  const once = (err) => {
    if (called) return;
    called = true;
    then(err, err ? null : socket);
  };
  socket.once('connect', () => once(null));
  socket.once('connect_error', (err) => once(err || new Error('connect_error')));
  return undefined;
}

// Every socket of the virtual user, disconnected.
function closeSockets(ctx) {
  for (const s of Object.values(ctx.sockets || {})) s.disconnect();
}

// One emit on `socket`, waited for as the step says: then(err | null) once over (null: it
// succeeded). A response waits on its channel until what arrived holds its data (or the
// script's timeout passes: what arrived is then read as it is, nothing is "response
// timeout"); an acknowledgement waits for the server's callback (bounded by the same
// timeout: Artillery's waits for ever); neither: done once emitted.
function emitOn(socket, step, ctx, timeoutS, then) {
  const e = step.emit;
  const outgoing = Array.isArray(e)
    ? e.map((a) => template(a, ctx))
    : [template(e.channel, ctx), template(e.data, ctx)];
  const ack = step.acknowledge ? ackSpec(step.acknowledge, ctx) : null;
  let over = false;
  const timers = [];
  const finish = (err) => {
    if (over) return;
    over = true;
    for (const t of timers) clearTimeout(t);
    then(err);
  };
  const waitMs = timeoutS * 1000;
  // After the response (or alone): the acknowledgement, or nothing more.
  const afterResponse = (err, needEmit) => {
    if (!ack) {
      if (needEmit) socket.emit(...outgoing);
      return finish(err);
    }
    const onAck = (...args) => finish(processResponse(args, ack, ctx) || err);
    // (Artillery, a response read first, calls the acknowledgement's check with no arguments.)
    if (!needEmit) return onAck();
    timers.push(setTimeout(() => finish('acknowledgement timeout'), waitMs));
    return socket.emit(...outgoing, onAck);
  };
  if (!step.response?.channel) return afterResponse(null, true);
  const response = {
    channel: template(step.response.channel, ctx),
    concat: template(step.response.concat, ctx),
    data: template(step.response.data, ctx),
    capture: template(step.response.capture, ctx),
    match: template(step.response.match, ctx),
  };
  const received = [];
  let read = false;
  const readOnce = () => {
    if (read) return;
    read = true;
    socket.off(response.channel);
    const err = processResponse(received, response, ctx);
    if (err) return finish(err);
    return afterResponse(null, false);
  };
  socket.on(response.channel, (...args) => {
    received.push(...args);
    if (isValid(received, response)) readOnce();
  });
  socket.emit(...outgoing);
  timers.push(
    setTimeout(() => {
      if (read) return;
      if (received.length) return readOnce();
      return finish('response timeout');
    }, waitMs),
  );
  return undefined;
}

// An acknowledgement's checks, its mappings reading the first argument by default ($.0).
function ackSpec(a, ctx) {
  const spec = {
    data: template(a.data, ctx),
    capture: template(a.capture, ctx),
    match: template(a.match, ctx),
  };
  for (const v of Object.values(spec)) if (isPlain(v) && !('json' in v)) v.json = '$.0';
  return spec;
}

// Whether what arrived holds the data the response asks for (Artillery's isValid): a list,
// every argument equal; a mapping, the last argument equal (its json key aside); text, part
// of the last argument's text (or of all, joined, with concat).
function isValid(data, response) {
  const want = response.data;
  if (Array.isArray(want)) return deepEqual(data, want);
  if (want !== null && typeof want === 'object') {
    const expected = { ...want };
    delete expected.json;
    return deepEqual(data[data.length - 1], expected);
  }
  if (typeof want === 'string') {
    const actual = response.concat ? data.join('') : data[data.length - 1];
    return (typeof actual === 'string' || Array.isArray(actual)) && actual.includes(want);
  }
  return false;
}

// What arrived, read as Artillery reads it: its data checked, then captures and matches on
// the arguments as JSON (a failed match fails the virtual user, "Failed match"; a capture
// that finds nothing sets nothing and goes on, as there). -> an error's words, or null.
function processResponse(data, response, ctx) {
  if (response.data && !isValid(data, response)) return 'data is not valid';
  if (!response.capture && !response.match) return null;
  const text = JSON.stringify(data);
  const list = (v) => (v ? (Array.isArray(v) ? v : [v]) : []);
  const checked = captureOrMatch(
    { capture: list(response.capture), match: list(response.match) },
    { status: 200, headers: {}, text },
    ctx,
    { strictDefault: false },
  );
  if (checked.failed) return 'Failed match';
  ctx.vars.$ = text;
  ctx._successCount += 1;
  return null;
}

const isPlain = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

module.exports = { socketOf, closeSockets, emitOn, isValid, processResponse };
