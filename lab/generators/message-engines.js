'use strict';

const { template } = require('../scenario/template');
const { socketOf, emitOn } = require('./vu/socketio');

// The message engines of a shard (./fast-worker.js): Artillery's ws and socketio scenarios,
// their sockets opened for a virtual user and their messages sent, waited for and counted
// as requests are (the shard's launch: its second, its send lag, in flight).

const clock = () => performance.timeOrigin + performance.now();
const us = (ms) => Math.max(1, Math.round(ms * 1000));
let WebSocket = null;

// A ws flow's socket, as Artillery's ws engine opens it before the flow: to the connect
// step's target, else to the run's target as ws:// (wss:// for https://); with config.ws's
// subprotocols (and those of a Sec-WebSocket-Protocol among its headers) and the rest of it
// as the client's options (its headers among them), the script's tls settings first. A
// connect step's own settings replace config.ws's. then(ok, at).
function wsConnect(shard, ctx, flow, then) {
  WebSocket ??= require('ws');
  const model = shard.data.model;
  const c = flow.connect;
  const ws = Object.fromEntries(Object.entries(model.ws || {}).filter(([k]) => k !== 'timeoutS'));
  const settings = c
    ? { ...c.options, subprotocols: c.subprotocols ?? ws.subprotocols, headers: c.headers ?? ws.headers }
    : ws;
  const subprotocols = [...(settings.subprotocols || [])];
  const named = Object.entries(settings.headers || {}).find(([k]) => k.toLowerCase() === 'sec-websocket-protocol');
  if (named)
    subprotocols.push(
      ...String(named[1])
        .split(',')
        .map((s) => s.trim()),
    );
  const options = { ...(model.tls || {}), ...settings };
  const base = new URL(shard.urls[0].href);
  base.protocol = base.protocol === 'https:' ? 'wss:' : 'ws:';
  const target = c?.target ? String(template(c.target, ctx)) : base.href;
  const failed = (err) => {
    const at = clock();
    shard.seconds.failure(shard.seconds.at(at), { name: 'WS connect' }, err.code || err.message);
    then(false, at);
  };
  let socket;
  try {
    socket = new WebSocket(target, subprotocols, options);
  } catch (err) {
    return failed(err);
  }
  socket.once('error', failed);
  socket.once('open', () => {
    socket.off('error', failed);
    // (Later errors fail the send they happen in; one between sends is not a virtual user's.)
    socket.on('error', () => {});
    ctx.ws = socket;
    then(true, clock());
  });
  return undefined;
}

// One message of a ws flow on the virtual user's socket, due at `due`: counted as a request
// is (launched when sent, completed when written, or, with a capture or match, when the
// next message came, which is then(ok, end, its text)), timed from its due time. A wait
// (no payload) only reads the next message. Within the script's timeout (10 s by default,
// "response timeout" as Artillery calls it).
function wsSend(shard, step, vu, due, payload, waits, then) {
  if (shard.stopped) return;
  const { seconds } = shard;
  const socket = vu.ws;
  const { sentAt, from } = shard.launch(due);
  let over = false;
  let timer = null;
  const end = () => {
    over = true;
    clearTimeout(timer);
    socket.off('message', onMessage);
    shard.pending -= 1;
    return clock();
  };
  const answered = (text) => {
    if (over) return;
    const at = end();
    completed(seconds.at(at), at, from, sentAt);
    then(true, at, text);
  };
  const failed = (code) => {
    if (over) return;
    const at = end();
    seconds.failure(seconds.at(at), step, code);
    then(false, at, code);
  };
  const onMessage = (data) => answered(String(data));
  if (waits) {
    socket.once('message', onMessage);
    timer = setTimeout(() => failed('response timeout'), (shard.data.model.ws?.timeoutS ?? 10) * 1000);
  }
  if (payload === undefined) return;
  try {
    socket.send(payload, (err) => {
      if (err) return failed(err.code || err.message);
      return waits ? undefined : answered(null);
    });
  } catch (err) {
    failed(err.code || err.message);
  }
}

// The socketio options of a virtual user of `flow` (./vu/socketio.js): the run's target, the
// script's socketio options (the scenario's over config's), its tls settings; made once a
// flow (its virtual users template them, not change them).
const optionsOf = new WeakMap();
function sioOptions(shard, flow) {
  let o = optionsOf.get(flow);
  if (!o) {
    const { model } = shard.data;
    o = {
      base: shard.urls[0].href.replace(/\/$/, ''),
      options: { ...(model.socketio?.options || {}), ...(flow.socketio || {}) },
      tls: model.tls,
    };
    optionsOf.set(flow, o);
  }
  return o;
}

// The socket of a socketio namespace for the virtual user (opened on its first use); a
// failure to connect counted as the virtual user's error. then(ok, at).
function sioSocket(shard, ctx, namespace, then) {
  socketOf(ctx, namespace, ctx._socketio, (err) => {
    if (!err) return then(true, clock());
    const at = clock();
    shard.seconds.failure(shard.seconds.at(at), { name: 'socketio connect' }, err.code || err.message);
    return then(false, at);
  });
}

// One emit of a socketio flow, due at `due`, on its namespace's socket: counted as a request
// is (launched when emitted, completed when what it waits for came and was read, timed
// from its due time). then(ok, end, code).
function sioEmit(shard, step, vu, due, then) {
  if (shard.stopped) return;
  const namespace = template(step.namespace, vu) || '';
  sioSocket(shard, vu, namespace, (ok, at) => {
    if (!ok) return then(false, at, 'socketio connect');
    const { sentAt, from } = shard.launch(due);
    return emitOn(vu.sockets[namespace], step, vu, shard.data.model.socketio.timeoutS, (err) => {
      shard.pending -= 1;
      const end = clock();
      const b = shard.seconds.at(end);
      if (err) {
        shard.seconds.failure(b, step, String(err));
        return then(false, end, String(err));
      }
      completed(b, end, from, sentAt);
      return then(true, end);
    });
  });
}

// A message answered (or written) at `at`: completed in its second, timed from its due time
// and from its send.
function completed(b, at, from, sentAt) {
  b.completed += 1;
  b.latency.recordValue(us(at - from));
  b.fromSend.recordValue(us(at - sentAt));
}

module.exports = { wsConnect, wsSend, sioOptions, sioSocket, sioEmit };
