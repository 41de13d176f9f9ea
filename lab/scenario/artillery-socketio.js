'use strict';

const { isMap } = require('./artillery-fields');

// A scenario of Artillery's socketio engine as the lab's engine runs it (its int-core
// engine_socketio.js, on the same socket.io-client): a Socket.IO connection a virtual user to
// the target's default namespace, opened before its flow, another for each namespace a step
// names (opened when first used), all closed after it. An `emit` step sends an event: a
// mapping { channel, data } sends the channel and the data; a list sends its items (the first
// the event's name). Beside it, `response` waits for an event on a channel (`channel` or
// `on`) whose arguments hold `data` (or `args`) and reads them with capture and match;
// `acknowledge` waits for the server's acknowledgement and reads its arguments so. Any other
// step (a request, function, log, think) is the HTTP engine's, as Artillery hands it over.
//   -> steps, each { sio: { namespace, emit, response, acknowledge } } or an HTTP flow's step
// readers: { readThink, readLoop, readStep } from the HTTP flow's reader (./artillery-flow.js).

const EMIT_KEYS = ['emit', 'namespace', 'response', 'acknowledge'];
const RESPONSE_KEYS = ['channel', 'on', 'data', 'args', 'concat', 'capture', 'match'];
const ACK_KEYS = ['data', 'args', 'capture', 'match'];

function readSocketioFlow(r, flow, at, seen, readers) {
  const { readThink, readLoop, readStep } = readers;
  const steps = [];
  flow.forEach((step, i) => {
    const here = [...at, i];
    if (!isMap(step)) r.fail(here, 'a step is a mapping: emit, think, loop, or an HTTP step (get, post, function...)');
    if ('emit' in step) return steps.push({ sio: readEmit(r, step, here, seen) });
    if ('loop' in step) {
      const inner = (loopSteps, where) => readSocketioFlow(r, loopSteps, where, seen, readers);
      return steps.push(readLoop(r, step, here, seen, inner));
    }
    if ('think' in step && Object.keys(step).length === 1)
      return steps.push({ think: readThink(r, step.think, [...here, 'think'], seen) });
    // (Anything else Artillery's socketio engine hands to its HTTP engine.)
    return steps.push(...readStep(r, step, here, seen));
  });
  return steps;
}

// An emit step: what it sends, its namespace, what it waits for.
function readEmit(r, step, at, seen) {
  for (const k of Object.keys(step)) if (!EMIT_KEYS.includes(k)) seen.odd([...at, k]);
  const emit = step.emit;
  // (As Artillery's script check reads it: a list of texts, or a channel named by a text.)
  if (Array.isArray(emit)) {
    if (!emit.length) r.fail([...at, 'emit'], "a list of the event's name and its arguments");
    emit.forEach((a, k) => {
      if (typeof a !== 'string') r.fail([...at, 'emit', k], 'a text (Artillery checks that each item is one)');
    });
  } else if (!isMap(emit) || typeof emit.channel !== 'string') {
    r.fail([...at, 'emit'], 'a mapping with channel (and data), or a list: the event name, then its arguments');
  } else if (emit.concat !== undefined && typeof emit.concat !== 'boolean') {
    r.fail([...at, 'emit', 'concat'], 'true or false');
  }
  if (step.namespace !== undefined && typeof step.namespace !== 'string')
    r.fail([...at, 'namespace'], 'a namespace like /chat');
  const response = step.response === undefined ? null : readWait(r, step.response, [...at, 'response'], true, seen);
  if (response && response.channel === undefined)
    r.fail([...at, 'response'], 'the channel (or on:) the answer comes on');
  const acknowledge =
    step.acknowledge === undefined ? null : readWait(r, step.acknowledge, [...at, 'acknowledge'], false, seen);
  return { namespace: step.namespace ?? '', emit, response, acknowledge };
}

// A response's or an acknowledgement's checks: the arguments it must hold and its captures
// and matches (a mapping or a list of them).
function readWait(r, value, at, onChannel, seen) {
  if (!isMap(value)) r.fail(at, onChannel ? 'a mapping with channel (or on), data, capture, match' : 'a mapping');
  for (const k of Object.keys(value)) if (!(onChannel ? RESPONSE_KEYS : ACK_KEYS).includes(k)) seen.odd([...at, k]);
  for (const k of ['capture', 'match']) {
    const v = value[k];
    if (v !== undefined && !isMap(v) && !(Array.isArray(v) && v.every(isMap)))
      r.fail([...at, k], 'a mapping, or a list of mappings');
  }
  return {
    ...(onChannel ? { channel: value.channel ?? value.on, concat: value.concat ?? null } : {}),
    data: value.data ?? value.args ?? null,
    capture: value.capture ?? null,
    match: value.match ?? null,
  };
}

// config.socketio (and a scenario's socketio): socket.io-client's options, as Artillery
// hands them over (templated for each virtual user).
function readSocketioConfig(r, value, at) {
  if (value === undefined) return {};
  if (!isMap(value)) r.fail(at, "a mapping of socket.io-client's options (transports, path, query, extraHeaders...)");
  return value;
}

// config.socketio's query once config's templates are rendered (when the script is read, as
// Artillery renders them): a template naming no variable of that moment (a virtual user's)
// renders as nothing, which socket.io-client sends as the text "undefined"; kept so, rather
// than lost on the way to the engine's threads or to Artillery's copy of the script.
function keepUndefinedQuery(config) {
  const q = config?.socketio?.query;
  if (!isMap(q)) return;
  for (const [k, v] of Object.entries(q)) if (v === undefined) q[k] = 'undefined';
}

module.exports = { readSocketioFlow, readSocketioConfig, keepUndefinedQuery };
