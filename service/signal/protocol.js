'use strict';

// The signaling protocol, as data and pure checks: what a client may send on /signal, what
// it gets back, and the codes of what goes wrong. The server (./server.js) only applies it.
//
// client -> server                         server -> client
//   {"type":"join","room":R}                 {"type":"joined","id":ID,"peers":[...]}
//   {"type":"offer"|"answer"|"candidate",    to that peer: {"type":...,"from":ID,"data":...}
//    "to":PEER,"data":...}
//                                            to the others of the room:
//                                              {"type":"peer-joined","id":ID}
//                                              {"type":"peer-left","id":ID}
//   anything wrong                           {"type":"error","code":CODE,"message":...}
const RELAYED = new Set(['offer', 'answer', 'candidate']);
const TYPES = new Set(['join', ...RELAYED]);

// Error codes sent in an error message; the connection stays open.
const ERRORS = Object.freeze({
  BAD_JSON: 'not a JSON object',
  UNKNOWN_TYPE: `type must be one of ${[...TYPES].join(', ')}`,
  BAD_ROOM: 'room must be 1 to 64 letters, digits, "-" or "_"',
  ALREADY_JOINED: 'this connection has joined a room already',
  NOT_JOINED: 'join a room first',
  BAD_PEER: 'to must name a peer (a string)',
  NO_SUCH_PEER: 'no such peer in this room',
  RATE_LIMITED: 'too many messages a second: this one was dropped',
});

// Close codes (RFC 6455 section 7.4): the connection is closed, the others are unaffected.
const CLOSE = Object.freeze({
  TOO_BIG: 1009, // a message above MAX_MESSAGE_BYTES (ws closes with it itself)
  POLICY: 1008, // far above the message rate: dropping is not enough
  GOING_AWAY: 1001, // the server stops
});

const LIMITS = Object.freeze({
  MAX_MESSAGE_BYTES: 16 * 1024,
  // Messages a second a connection may send; beyond, dropped with RATE_LIMITED; beyond
  // CLOSE_FACTOR times it, closed with POLICY.
  MESSAGES_PER_S: 20,
  CLOSE_FACTOR: 5,
  HEARTBEAT_MS: 15000,
});

const ROOM = /^[\w-]{1,64}$/;

// A client's message -> { ok: true, msg } or { ok: false, code }.
function parseMessage(text) {
  let msg;
  try {
    msg = JSON.parse(text);
  } catch {
    return { ok: false, code: 'BAD_JSON' };
  }
  if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return { ok: false, code: 'BAD_JSON' };
  if (!TYPES.has(msg.type)) return { ok: false, code: 'UNKNOWN_TYPE' };
  if (msg.type === 'join' && (typeof msg.room !== 'string' || !ROOM.test(msg.room))) {
    return { ok: false, code: 'BAD_ROOM' };
  }
  if (RELAYED.has(msg.type) && (typeof msg.to !== 'string' || !msg.to || msg.to.length > 128)) {
    return { ok: false, code: 'BAD_PEER' };
  }
  return { ok: true, msg };
}

const errorMessage = (code) => ({ type: 'error', code, message: ERRORS[code] });

// A per-connection budget of messages a second: 'ok', 'drop' or 'close'.
function rateLimiter(perS = LIMITS.MESSAGES_PER_S, closeFactor = LIMITS.CLOSE_FACTOR, now = Date.now) {
  let second = -1;
  let count = 0;
  return () => {
    const s = Math.floor(now() / 1000);
    if (s !== second) {
      second = s;
      count = 0;
    }
    count += 1;
    if (count > perS * closeFactor) return 'close';
    return count > perS ? 'drop' : 'ok';
  };
}

module.exports = { parseMessage, errorMessage, rateLimiter, RELAYED, TYPES, ERRORS, CLOSE, LIMITS, ROOM };
