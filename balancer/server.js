'use strict';

const http = require('node:http');
const net = require('node:net');

// The lab's own L7 balancer on node:http, an experiment subject like the self-written
// balancer of seed 004: round-robin over the replicas, one keep-alive agent per replica, the
// request and the answer streamed through. A replica that refuses the connection is skipped
// for the next one, once per request (nginx's `proxy_next_upstream error`, 2 tries); other
// failures answer 502, a time-out 504, both with a JSON body.
function createBalancer({ upstreams, keepalive, timeoutMs }) {
  const targets = upstreams.map((u) => {
    const [host, port] = u.split(':');
    return { host, port: Number(port), agent: new http.Agent({ keepAlive: keepalive > 0, maxFreeSockets: keepalive }) };
  });
  let next = 0;
  const pick = () => targets[next++ % targets.length];

  function forward(req, res, target, triesLeft) {
    const out = http.request(
      {
        host: target.host,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, connection: 'keep-alive' },
        agent: target.agent,
      },
      (answer) => {
        res.writeHead(answer.statusCode, answer.headers);
        answer.pipe(res);
      },
    );
    out.setTimeout(timeoutMs, () => out.destroy(Object.assign(new Error('upstream time-out'), { code: 'ETIMEDOUT' })));
    out.on('error', (err) => {
      if (res.headersSent) return res.destroy();
      // Only a refused connection is retried: the request never reached the replica.
      if (err.code === 'ECONNREFUSED' && triesLeft > 1 && req.method === 'GET') {
        return forward(req, res, pick(), triesLeft - 1);
      }
      const status = err.code === 'ETIMEDOUT' ? 504 : 502;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: err.code || 'EUPSTREAM', upstream: `${target.host}:${target.port}` }));
    });
    req.pipe(out);
  }

  const server = http.createServer((req, res) => forward(req, res, pick(), 2));
  // A WebSocket (any Upgrade): one connection to the next replica, the request written as it
  // came, then bytes both ways until either side closes.
  server.on('upgrade', (req, socket, head) => {
    const target = pick();
    const up = net.connect({ host: target.host, port: target.port }, () => {
      const headers = Object.entries(req.headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      up.write(`${req.method} ${req.url} HTTP/1.1\r\n${headers}\r\n`);
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    const close = () => {
      up.destroy();
      socket.destroy();
    };
    up.on('error', () => {
      if (!socket.destroyed) socket.end('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\n\r\n');
      close();
    });
    socket.on('error', close);
    up.on('close', close);
    socket.on('close', close);
  });
  server.keepAliveTimeout = 65000;
  // Stops accepting, lets the answers in flight finish, then drops the idle upstream sockets.
  const stop = (cb) =>
    server.close(() => {
      for (const t of targets) t.agent.destroy();
      if (cb) cb();
    });
  return { server, stop };
}

module.exports = createBalancer;
