'use strict';

const net = require('node:net');
const crypto = require('node:crypto');
const hubRegistry = require('./registry');
const { lines } = require('./lines');
const { parseRequest, MAX_LINE_BYTES } = require('./protocol');
const { helloGate } = require('./gate');

// The hub's TCP server: newline-delimited JSON, one connection per service process. With a
// token (HUB_TOKEN, the deployment's own), a connection's first line must be
// {"op":"hello","token":...}; anything else closes it. Every line is size-capped and
// checked (./protocol.js); a bad one closes only its own connection. A connection that has not
// said hello gets a few seconds to, and only so many wait at once (./gate.js).
function createHub({ token = '', maxLineBytes = MAX_LINE_BYTES, gate: gateOptions } = {}) {
  const gate = token ? helloGate(gateOptions) : null;
  const registry = hubRegistry();
  const links = new Set();
  const sockets = new Set();
  const expected = Buffer.from(token);
  const tokenOk = (given) => {
    const b = Buffer.from(String(given));
    return b.length === expected.length && crypto.timingSafeEqual(b, expected);
  };
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    sockets.add(socket);
    const link = { send: (obj) => !socket.destroyed && socket.write(`${JSON.stringify(obj)}\n`) };
    let greeted = !token;
    if (gate) gate.admit(socket);
    const refuse = (id, message) => {
      link.send({ op: 'error', id, message, fatal: true });
      socket.end();
      socket.destroy();
    };
    lines(
      socket,
      (line) => {
        const { req, error } = parseRequest(line);
        if (error) return refuse(undefined, error);
        if (req.op === 'hello') {
          if (!tokenOk(req.token)) return refuse(req.id, 'wrong token');
          greeted = true;
          if (gate) gate.greeted(socket);
          return link.send({ op: 'hello', id: req.id });
        }
        if (!greeted) return refuse(req.id, 'say hello with the deployment token first');
        if (!links.has(link)) links.add(link);
        try {
          return registry.handle(link, req);
        } catch (err) {
          return refuse(req.id, `failed: ${err.message}`);
        }
      },
      { maxBytes: maxLineBytes, onOverflow: () => refuse(undefined, `a line over ${maxLineBytes} bytes`) },
    );
    const gone = () => {
      sockets.delete(socket);
      if (!links.delete(link)) return;
      registry.drop(link);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  });
  // Stops at once: the service processes hold their connections open for good, so waiting
  // for them (server.close alone) meant every `down` waited for pm2's SIGKILL.
  const stop = () =>
    new Promise((resolve) => {
      server.close(() => resolve());
      if (gate) gate.close();
      for (const s of sockets) s.destroy();
    });
  return { server, registry, links, stop, gate };
}

module.exports = createHub;
