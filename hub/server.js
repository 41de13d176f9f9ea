'use strict';

const net = require('node:net');
const hubRegistry = require('./registry');
const { lines } = require('./lines');

// The hub's TCP server: newline-delimited JSON, one connection per service process.
function createHub() {
  const registry = hubRegistry();
  const links = new Set();
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    const link = { send: (obj) => socket.write(`${JSON.stringify(obj)}\n`) };
    links.add(link);
    lines(socket, (line) => {
      let req;
      try {
        req = JSON.parse(line);
      } catch {
        return link.send({ op: 'error', message: 'not JSON' });
      }
      registry.handle(link, req);
    });
    const gone = () => {
      if (!links.delete(link)) return;
      registry.drop(link);
    };
    socket.on('close', gone);
    socket.on('error', gone);
  });
  return { server, registry, links };
}

module.exports = createHub;
