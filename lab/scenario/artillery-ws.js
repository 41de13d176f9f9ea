'use strict';

const { isMap } = require('./artillery-fields');

// A scenario of Artillery's ws engine as the lab's engine runs it (its int-core engine_ws.js):
// a WebSocket a virtual user, opened before its flow (to config.target, or to the first step's
// `connect`), closed after it; `send` a message (text as written, a mapping as JSON, templates
// rendered), or { payload, capture, match } to wait for the next message and read it (within
// config.timeout or config.ws.timeout, 10 s by default); `wait` { capture, match } reads the
// next message without sending; think, loop (count, over), function and log as in an HTTP flow.
//   -> { steps, connect: { target?, headers, subprotocols, options } | null }
// readThink, readLoop and the seen notes come from the HTTP flow's reader (./artillery-flow.js).

const CONNECT_KEYS = ['target', 'headers', 'subprotocols'];
// (Artillery's ws engine reads no loopElement.)
const WS_LOOP_KEYS = ['count', 'over', 'whileTrue', 'loopValue'];

function readWsFlow(r, flow, at, seen, readers) {
  const { readThink, readLoop } = readers;
  let connect = null;
  const steps = [];
  flow.forEach((step, i) => {
    const here = [...at, i];
    if (!isMap(step)) r.fail(here, 'a step is a mapping of one action: send, wait, think, loop, function, log...');
    const keys = Object.keys(step);
    const action = 'loop' in step ? 'loop' : keys[0];
    if (keys.length !== 1 && action !== 'loop')
      r.fail(here, `a step is one action, here ${keys.length ? keys.join(' and ') : 'none'} (as Artillery checks it)`);
    const value = step[action];
    if (action === 'connect') {
      // (Artillery reads the connect of the first step only; later ones do nothing.)
      if (i !== 0) return;
      if (isMap(value) && value.function !== undefined) return seen.note([...here, 'connect'], 'a connect function');
      connect = readConnect(r, value, [...here, 'connect']);
    } else if (action === 'send') {
      steps.push({ ws: readSend(r, value, [...here, 'send'], true) });
    } else if (action === 'wait') {
      if (!isMap(value) || (value.capture === undefined && value.match === undefined))
        r.fail([...here, 'wait'], 'a mapping with capture or match (the next message is read)');
      steps.push({ ws: readSend(r, value, [...here, 'wait'], false) });
    } else if (action === 'think') {
      steps.push({ think: readThink(r, value, [...here, 'think'], seen) });
    } else if (action === 'loop') {
      const inner = (loopSteps, where) => readWsFlow(r, loopSteps, where, seen, readers).steps;
      steps.push(readLoop(r, step, here, seen, inner, WS_LOOP_KEYS));
    } else if (action === 'function') {
      if (typeof value !== 'string') r.fail([...here, 'function'], 'the name of a function of config.processor');
      steps.push({ function: value });
    } else if (action === 'log') {
      steps.push({ log: value });
    } else seen.odd([...here, action]);
    return undefined;
  });
  return { steps, connect };
}

// A send's message, or a wait's (payload undefined), with its captures and matches.
function readSend(r, value, at, sends) {
  const checks = isMap(value) && (value.capture !== undefined || value.match !== undefined);
  const list = (v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
  const payload = !sends ? undefined : checks ? value.payload : value;
  if (sends && (payload === undefined || payload === null))
    r.fail(at, 'a message to send (text, or a mapping sent as JSON)');
  const capture = checks ? list(value.capture) : [];
  const match = checks ? list(value.match) : [];
  for (const [k, l] of [
    ['capture', capture],
    ['match', match],
  ])
    l.forEach((c, i) => {
      if (!isMap(c)) r.fail([...at, k, i], 'a mapping');
    });
  return { payload, capture, match };
}

// The connect step: a target (a template), or { target, headers, subprotocols, options... }.
function readConnect(r, value, at) {
  if (typeof value === 'string') return { target: value, headers: null, subprotocols: null, options: {} };
  if (!isMap(value)) r.fail(at, 'a target, or a mapping with target, headers, subprotocols');
  if (value.headers !== undefined && !isMap(value.headers)) r.fail([...at, 'headers'], 'a mapping');
  if (value.subprotocols !== undefined && !Array.isArray(value.subprotocols)) r.fail([...at, 'subprotocols'], 'a list');
  const options = Object.fromEntries(Object.entries(value).filter(([k]) => !CONNECT_KEYS.includes(k)));
  return {
    target: value.target ?? null,
    headers: value.headers ?? null,
    subprotocols: value.subprotocols ?? null,
    options,
  };
}

// config.ws: subprotocols, headers (a Sec-WebSocket-Protocol among them adds its protocols),
// and the rest as the ws client's options; a proxy is Artillery's alone.
function readWsConfig(r, ws, note) {
  if (ws === undefined) return null;
  if (!isMap(ws)) r.fail(['config', 'ws'], 'a mapping');
  if (ws.proxy !== undefined) note(['config', 'ws', 'proxy'], 'a WebSocket proxy (config.ws.proxy)');
  if (ws.headers !== undefined && !isMap(ws.headers)) r.fail(['config', 'ws', 'headers'], 'a mapping');
  if (ws.subprotocols !== undefined && !Array.isArray(ws.subprotocols))
    r.fail(['config', 'ws', 'subprotocols'], 'a list');
  return Object.fromEntries(Object.entries(ws).filter(([k]) => k !== 'proxy'));
}

module.exports = { readWsFlow, readWsConfig };
