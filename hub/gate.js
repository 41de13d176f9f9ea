'use strict';

// The door of a server whose clients must first say who they are (the hub's service
// processes, the coordinator's load nodes): a connection that has not said hello gets
// `helloMs` to do so, and at most `maxWaiting` such connections are held at once. Past
// that, the one that has waited longest is closed to make room, so a stranger holding idle
// connections (2,000 were held for good before this gate) cannot keep the lab's own out:
// a newcomer that says hello at once always gets in.
const HELLO_MS = 5000;
const MAX_WAITING = 64;

function helloGate({ helloMs = HELLO_MS, maxWaiting = MAX_WAITING } = {}) {
  const waiting = new Map(); // socket -> timer, in arrival order
  const forget = (socket) => {
    const timer = waiting.get(socket);
    if (timer === undefined) return;
    clearTimeout(timer);
    waiting.delete(socket);
  };
  return {
    // A new connection: waits for its hello, closed when it does not come in time.
    admit(socket) {
      if (waiting.size >= maxWaiting) {
        const [oldest] = waiting.keys();
        forget(oldest);
        oldest.destroy();
      }
      const timer = setTimeout(() => {
        waiting.delete(socket);
        socket.destroy();
      }, helloMs);
      timer.unref();
      waiting.set(socket, timer);
      socket.once('close', () => forget(socket));
    },
    // It said hello with the right token: no longer timed or counted.
    greeted: forget,
    get waiting() {
      return waiting.size;
    },
    close() {
      for (const [socket, timer] of waiting) {
        clearTimeout(timer);
        socket.destroy();
      }
      waiting.clear();
    },
  };
}

module.exports = { helloGate, HELLO_MS, MAX_WAITING };
