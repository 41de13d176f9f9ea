'use strict';

const net = require('node:net');
const { lines } = require('../../hub/lines');

// The registry of a service process that shares its rooms through the hub (hub/): the same
// interface as ./local-registry.js. Peers of this process are delivered to directly when
// both ends are here; everything else goes through the hub, one TCP connection per process.
// address: "host:port"; token: the deployment's (HUB_TOKEN on the hub's side). Requests time
// out after timeoutMs (the hub is on the same network).
//
// Losing the hub costs signaling across processes only, never the process: HTTP goes on,
// and the connection is made again with backoff (backoffMs, doubling up to maxBackoffMs).
// What a participant sees meanwhile: its WebSocket stays open; a relay to a peer of the
// same process is delivered; one to a peer elsewhere, a join and GET /room answer
// UNAVAILABLE. When the hub is back, every process registers the peers it still holds and
// the rooms are as they were, except that a peer who left during the gap was not announced
// to the other processes' peers (a message to it then gets NO_SUCH_PEER).
function hubClient(address, { token = '', timeoutMs = 5000, backoffMs = 100, maxBackoffMs = 2000 } = {}) {
  const at = address.lastIndexOf(':');
  const host = address.slice(0, at);
  const port = Number(address.slice(at + 1));
  const local = new Map(); // peer -> { room, deliver }
  const pending = new Map(); // request id -> { resolve, reject, timer }
  const onLost = [];
  const onBack = [];
  let next = 1;
  let closed = false;
  let socket = null;
  let up = false; // connected
  let lostOnce = false; // the first connection is waited for (writes queue); after a loss, fail fast
  let wait = backoffMs;
  let retry = null;

  const unavailable = (why) => {
    const err = new Error(`the hub at ${address} is unreachable (${why}); retrying`);
    err.code = 'HUB_UNAVAILABLE';
    return err;
  };
  const write = (obj) => socket && !socket.destroyed && socket.write(`${JSON.stringify(obj)}\n`);

  function connect() {
    retry = null;
    const s = net.connect({ host, port });
    socket = s;
    s.setNoDelay(true);
    let lost = null;
    s.on('error', (err) => (lost = err));
    // The greeting is the first line, also when the first requests were queued before it.
    if (token) write({ op: 'hello', token });
    s.on('connect', () => {
      up = true;
      wait = backoffMs;
      // The rooms of this process's peers, as the hub had them before it went away.
      for (const [peer, { room }] of local) write({ op: 'rejoin', room, peer });
      for (const cb of onBack) cb();
    });
    s.on('close', () => {
      if (socket !== s) return;
      const wasUp = up;
      up = false;
      const err = unavailable(lost ? lost.message : 'connection closed');
      for (const p of pending.values()) {
        clearTimeout(p.timer);
        p.reject(err);
      }
      pending.clear();
      if (closed) return;
      lostOnce = true;
      if (wasUp) for (const cb of onLost) cb(err);
      retry = setTimeout(connect, wait);
      retry.unref();
      wait = Math.min(maxBackoffMs, wait * 2);
    });
    lines(s, (line) => {
      let m;
      try {
        m = JSON.parse(line);
      } catch {
        return undefined;
      }
      if (m.op === 'deliver') return local.get(m.to)?.deliver(m.msg);
      if (m.op === 'error' && m.fatal && m.id === undefined) return undefined; // the close follows
      const p = pending.get(m.id);
      if (!p) return undefined;
      pending.delete(m.id);
      clearTimeout(p.timer);
      return m.op === 'error' ? p.reject(new Error(m.message)) : p.resolve(m);
    });
  }
  connect();

  const request = (req) =>
    new Promise((resolve, reject) => {
      if (!up && lostOnce) return reject(unavailable('not connected'));
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the hub at ${address} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      write({ ...req, id });
      return undefined;
    });

  return {
    kind: 'hub',
    onLost: (cb) => onLost.push(cb),
    onBack: (cb) => onBack.push(cb),
    connected: () => up,
    async join(room, peer, deliver) {
      local.set(peer, { room, deliver });
      try {
        return (await request({ op: 'join', room, peer })).peers;
      } catch (err) {
        local.delete(peer);
        throw err;
      }
    },
    async send(room, from, to, msg) {
      const here = local.get(to);
      if (here && here.room === room) {
        here.deliver({ ...msg, from });
        return true;
      }
      return (await request({ op: 'send', room, from, to, msg })).ok;
    },
    leave(room, peer) {
      local.delete(peer);
      if (up) write({ op: 'leave', room, peer });
    },
    async roomId(size) {
      return (await request({ op: 'room', size })).room;
    },
    close() {
      closed = true;
      if (retry) clearTimeout(retry);
      if (socket) socket.end();
    },
  };
}

module.exports = hubClient;
