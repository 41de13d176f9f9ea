'use strict';

const { randomUUID } = require('node:crypto');

// The rooms of every service process, in one place: each process (a replica, or a cluster
// worker) holds its own clients' sockets and tells the hub who joined which room; the hub
// forwards what one process's client sends to the process holding the other peer. It is
// the lab's small stand-in for the Redis pub/sub real signaling deployments share rooms
// through, so a room works whichever worker or replica each participant lands on.
//
// Pure state: `link` is a connected process ({ send(obj) }); hub/server.js feeds it lines.
function hubRegistry() {
  const rooms = new Map(); // room -> Map(peer -> link)
  const ids = new Map(); // size -> { id, given }
  const deliver = (link, to, msg) => link.send({ op: 'deliver', to, msg });

  function leave(room, peer) {
    const m = rooms.get(room);
    if (!m || !m.delete(peer)) return;
    for (const [p, link] of m) deliver(link, p, { type: 'peer-left', id: peer });
    if (!m.size) rooms.delete(room);
  }

  // One request of a process, already checked (hub/protocol.js): answers carry its `id`.
  function handle(link, req) {
    switch (req.op) {
      case 'join': {
        if (!rooms.has(req.room)) rooms.set(req.room, new Map());
        const m = rooms.get(req.room);
        const peers = [...m.keys()];
        for (const [p, l] of m) deliver(l, p, { type: 'peer-joined', id: req.peer });
        m.set(req.peer, link);
        return link.send({ op: 'joined', id: req.id, peers });
      }
      case 'rejoin': {
        // After the hub restarted, each process registers the peers it still holds: the
        // room is rebuilt as it was, and nobody is told (they knew each other already).
        if (!rooms.has(req.room)) rooms.set(req.room, new Map());
        rooms.get(req.room).set(req.peer, link);
        return undefined;
      }
      case 'send': {
        const to = rooms.get(req.room)?.get(req.to);
        if (to) deliver(to, req.to, { ...req.msg, from: req.from });
        return link.send({ op: 'sent', id: req.id, ok: Boolean(to) });
      }
      case 'leave':
        return leave(req.room, req.peer);
      case 'room': {
        // The same id for `size` consecutive callers, whichever process asks (seed 002's get_id).
        let cur = ids.get(req.size);
        if (!cur || cur.given >= req.size) ids.set(req.size, (cur = { id: randomUUID(), given: 0 }));
        cur.given += 1;
        return link.send({ op: 'room', id: req.id, room: cur.id });
      }
      default:
        return link.send({ op: 'error', id: req.id, message: `unknown op ${JSON.stringify(req.op)}` });
    }
  }

  // A process went away: its peers leave their rooms (the others get peer-left).
  function drop(link) {
    for (const [room, m] of [...rooms]) for (const [p, l] of [...m]) if (l === link) leave(room, p);
  }

  const stats = () => ({ rooms: rooms.size, peers: [...rooms.values()].reduce((a, m) => a + m.size, 0) });
  return { handle, drop, stats };
}

module.exports = hubRegistry;
