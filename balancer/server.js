'use strict';

const http = require('node:http');
const net = require('node:net');

// The lab's own L7 balancer on node:http, an experiment subject like the self-written
// balancer of seed 004: round-robin over the replicas, one keep-alive agent per replica, the
// request and the answer streamed through. As nginx's defaults here: a GET whose connection
// failed before any answer (refused, reset) is tried once more on the next replica
// (`proxy_next_upstream error`, 2 tries), and a replica that failed `maxFails` times within
// `failTimeoutMs` is left out for `failTimeoutMs` (passive health: `max_fails=3
// fail_timeout=5s`); other failures answer 502, a time-out 504, both with a JSON body.
// resolveMs > 0: each name of `upstreams` is looked up again that often and stands for every
// address it has (a swarm's tasks.NAME); a target that disappears has its idle sockets closed.
// tls: { cert, key, http2 } (PEM text): it terminates TLS for its clients (HTTP/2 too, with
// HTTP/1.1 for clients that do not offer it), and its replicas stay plain HTTP/1.1.
function createBalancer({
  upstreams,
  keepalive,
  timeoutMs,
  resolveMs = 0,
  lookup = defaultLookup,
  maxFails = 3,
  failTimeoutMs = 5000,
  tls = null,
}) {
  const target = (host, port) => ({
    host,
    port: Number(port),
    agent: new http.Agent({ keepAlive: keepalive > 0, maxFreeSockets: keepalive }),
    fails: [],
    downUntil: 0,
  });
  let targets = upstreams.map((u) => target(...u.split(':')));
  let next = 0;
  // The next replica in turn that is not left out (all of them when every one is).
  const pick = (avoid = null) => {
    const now = Date.now();
    for (let i = 0; i < targets.length; i++) {
      const t = targets[next++ % targets.length];
      if (t !== avoid && t.downUntil <= now) return t;
    }
    return targets[next++ % targets.length];
  };
  const failed = (t) => {
    const now = Date.now();
    t.fails = t.fails.filter((at) => now - at < failTimeoutMs);
    t.fails.push(now);
    if (t.fails.length >= maxFails) {
      t.downUntil = now + failTimeoutMs;
      t.fails = [];
      t.agent.destroy(); // its idle sockets are dead too
      t.agent = new http.Agent({ keepAlive: keepalive > 0, maxFreeSockets: keepalive });
    }
  };
  let timer = null;
  const refresh = async () => {
    const found = [];
    for (const u of upstreams) {
      const [name, port] = u.split(':');
      try {
        for (const address of await lookup(name)) found.push(`${address}:${port}`);
      } catch {
        // A failed lookup keeps what is known: better a stale replica than none.
        return;
      }
    }
    if (!found.length) return;
    const known = new Map(targets.map((t) => [`${t.host}:${t.port}`, t]));
    targets = found.map((key) => known.get(key) || target(...key.split(':')));
    for (const [key, t] of known) if (!found.includes(key)) t.agent.destroy();
  };
  const ready = resolveMs > 0 ? refresh() : Promise.resolve();
  if (resolveMs > 0) {
    timer = setInterval(refresh, resolveMs);
    timer.unref();
  }

  function forward(req, res, target, triesLeft) {
    const sentAt = performance.now();
    const out = http.request(
      {
        host: target.host,
        port: target.port,
        method: req.method,
        path: req.url,
        headers: { ...upstreamHeaders(req.headers), connection: 'keep-alive' },
        agent: target.agent,
      },
      (answer) => {
        // Which replica answered and how long its headers took, as the other L7 kinds say it.
        // (An HTTP/2 answer carries no connection-level header.)
        const headers = req.httpVersionMajor === 2 ? withoutHopHeaders(answer.headers) : answer.headers;
        res.writeHead(answer.statusCode, {
          ...headers,
          'x-lab-upstream': `${target.host}:${target.port}`,
          'x-lab-upstream-ms': (performance.now() - sentAt).toFixed(3),
        });
        answer.pipe(res);
      },
    );
    out.setTimeout(timeoutMs, () => out.destroy(Object.assign(new Error('upstream time-out'), { code: 'ETIMEDOUT' })));
    out.on('error', (err) => {
      if (err.code !== 'ETIMEDOUT') failed(target);
      if (res.headersSent) return res.destroy();
      // A GET whose connection failed before any answer is sent again elsewhere (GETs are
      // idempotent here); a time-out is not (the replica may still be working on it).
      if (RETRIED.has(err.code) && triesLeft > 1 && req.method === 'GET') {
        return forward(req, res, pick(target), triesLeft - 1);
      }
      const status = err.code === 'ETIMEDOUT' ? 504 : 502;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: err.code || 'EUPSTREAM', upstream: `${target.host}:${target.port}` }));
    });
    req.pipe(out);
  }

  const handler = (req, res) => forward(req, res, pick(), 2);
  const server = !tls
    ? http.createServer(handler)
    : tls.http2
      ? require('node:http2').createSecureServer({ cert: tls.cert, key: tls.key, allowHTTP1: true }, handler)
      : require('node:https').createServer({ cert: tls.cert, key: tls.key }, handler);
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
  const stop = (cb) => {
    clearInterval(timer);
    server.close(() => {
      for (const t of targets) t.agent.destroy();
      if (cb) cb();
    });
  };
  // A new list of replicas (the lab's autoscaler, a rollout): the known ones kept as they are;
  // one no longer listed gets no new request, finishes those in flight on its sockets, and has
  // its idle sockets closed (drained, as nginx's old workers drain on a reload).
  const setUpstreams = (list) => {
    const known = new Map(targets.map((t) => [`${t.host}:${t.port}`, t]));
    targets = list.map((key) => known.get(key) || target(...key.split(':')));
    for (const [key, t] of known) {
      if (list.includes(key)) continue;
      t.agent.keepAlive = false;
      for (const sockets of Object.values(t.agent.freeSockets)) for (const s of sockets) s.destroy();
    }
  };
  return { server, stop, ready, setUpstreams, targets: () => targets.map((t) => `${t.host}:${t.port}`) };
}

const RETRIED = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

// A client's request headers as HTTP/1.1 sends them on: HTTP/2's pseudo-headers dropped, its
// :authority the Host.
function upstreamHeaders(headers) {
  const out = {};
  for (const [k, v] of Object.entries(headers)) if (!k.startsWith(':')) out[k] = v;
  if (!out.host && headers[':authority']) out.host = headers[':authority'];
  return out;
}

const HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection']);
const withoutHopHeaders = (headers) => Object.fromEntries(Object.entries(headers).filter(([k]) => !HOP.has(k)));

// Every IPv4 address of a name (an address stands for itself).
async function defaultLookup(name) {
  if (net.isIP(name)) return [name];
  const all = await require('node:dns').promises.lookup(name, { all: true, family: 4 });
  return all.map((a) => a.address);
}

module.exports = createBalancer;
