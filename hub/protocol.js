'use strict';

// What the hub accepts on a line, checked before anything acts on it: one JSON object with
// a known `op` and fields of the right kind. A line that is not is answered with an error
// and closes that connection only (a service process that sends it reconnects); the hub
// and every other process go on. `null` once crashed the hub and, through it, every replica.
const MAX_LINE_BYTES = 64 * 1024; // a relayed message is at most 16 KiB (service/signal)
const ID = { max: 128 };

const isText = (v, { max } = ID) => typeof v === 'string' && v.length >= 1 && v.length <= max;
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// op -> the check of its fields (besides op and an optional integer id).
const OPS = {
  hello: (r) => typeof r.token === 'string',
  join: (r) => isText(r.room) && isText(r.peer),
  // A peer a process held before the hub restarted: registered again, told to nobody.
  rejoin: (r) => isText(r.room) && isText(r.peer),
  send: (r) => isText(r.room) && isText(r.from) && isText(r.to) && isObject(r.msg),
  leave: (r) => isText(r.room) && isText(r.peer),
  room: (r) => Number.isInteger(r.size) && r.size >= 1 && r.size <= 1000,
};

// The request of a line, or { error } saying what is wrong with it.
function parseRequest(line) {
  let req;
  try {
    req = JSON.parse(line);
  } catch {
    return { error: 'not JSON' };
  }
  if (!isObject(req)) return { error: 'not a JSON object' };
  if (!Object.hasOwn(OPS, req.op)) return { error: `unknown op ${JSON.stringify(req.op)}` };
  if (req.id !== undefined && !Number.isInteger(req.id)) return { error: 'id is not an integer' };
  if (!OPS[req.op](req)) return { error: `bad fields for ${req.op}` };
  return { req };
}

module.exports = { parseRequest, MAX_LINE_BYTES, OPS };
