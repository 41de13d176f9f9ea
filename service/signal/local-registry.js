'use strict';

const { randomUUID } = require('node:crypto');

// Rooms held in this process: enough for one process, and the reference the hub
// (hub/registry.js) behaves like. Every member is a peer id with a deliver(msg) function.
//   join(room, peer, deliver) -> Promise<ids of the peers already there>
//   send(room, from, to, msg)  -> Promise<whether `to` is in the room>
//   leave(room, peer)
//   roomId(size)               -> Promise<the same fresh id for `size` consecutive callers>
function localRegistry() {
  const rooms = new Map();
  let current = null;
  const members = (room) => {
    if (!rooms.has(room)) rooms.set(room, new Map());
    return rooms.get(room);
  };
  return {
    kind: 'local',
    async join(room, peer, deliver) {
      const m = members(room);
      const peers = [...m.keys()];
      for (const d of m.values()) d({ type: 'peer-joined', id: peer });
      m.set(peer, deliver);
      return peers;
    },
    async send(room, from, to, msg) {
      const d = rooms.get(room)?.get(to);
      if (!d) return false;
      d({ ...msg, from });
      return true;
    },
    leave(room, peer) {
      const m = rooms.get(room);
      if (!m || !m.delete(peer)) return;
      for (const d of m.values()) d({ type: 'peer-left', id: peer });
      if (!m.size) rooms.delete(room);
    },
    async roomId(size) {
      if (!current || current.size !== size || current.given >= size) current = { id: randomUUID(), size, given: 0 };
      current.given += 1;
      return current.id;
    },
    close() {},
  };
}

module.exports = localRegistry;
