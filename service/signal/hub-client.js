'use strict';

const net = require('node:net');
const { lines } = require('../../hub/lines');

// The registry of a service process that shares its rooms through the hub (hub/): the same
// interface as ./local-registry.js. Peers of this process are delivered to directly when
// both ends are here; everything else goes through the hub, one TCP connection per process.
// address: "host:port". Requests time out after timeoutMs (the hub is on the same network).
function hubClient(address, { timeoutMs = 5000 } = {}) {
  const [host, port] = [
    address.slice(0, address.lastIndexOf(':')),
    Number(address.slice(address.lastIndexOf(':') + 1)),
  ];
  const local = new Map(); // peer -> { room, deliver }
  const pending = new Map(); // request id -> { resolve, reject, timer }
  let next = 1;
  let closed = false;
  const socket = net.connect({ host, port });
  socket.setNoDelay(true);
  let lost = null;
  socket.on('error', (err) => (lost = err));
  socket.on('close', () => {
    const err = lost || new Error('the hub closed the connection');
    for (const p of pending.values()) p.reject(err);
    pending.clear();
    // Without the hub this process cannot reach the other peers of its rooms; its own
    // clients are told by their connections closing (server.js).
    if (!closed) for (const cb of onLost) cb(err);
  });
  const onLost = [];
  lines(socket, (line) => {
    const m = JSON.parse(line);
    if (m.op === 'deliver') return local.get(m.to)?.deliver(m.msg);
    const p = pending.get(m.id);
    if (!p) return undefined;
    pending.delete(m.id);
    clearTimeout(p.timer);
    return m.op === 'error' ? p.reject(new Error(m.message)) : p.resolve(m);
  });
  const request = (req) =>
    new Promise((resolve, reject) => {
      const id = next++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`the hub at ${address} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      socket.write(`${JSON.stringify({ ...req, id })}\n`);
    });

  return {
    kind: 'hub',
    onLost: (cb) => onLost.push(cb),
    async join(room, peer, deliver) {
      local.set(peer, { room, deliver });
      return (await request({ op: 'join', room, peer })).peers;
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
      if (!socket.destroyed) socket.write(`${JSON.stringify({ op: 'leave', room, peer })}\n`);
    },
    async roomId(size) {
      return (await request({ op: 'room', size })).room;
    },
    close() {
      closed = true;
      socket.end();
    },
  };
}

module.exports = hubClient;
