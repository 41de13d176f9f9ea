'use strict';

// The keep-alive engine of the lab's own generators (closed, and fast --keepalive): requests
// on kept-alive HTTP/1.1 connections, written as prepared bytes and read by a small parser,
// optionally pipelined (--pipelining N: up to N requests in flight on a connection, as
// autocannon -p N). Measured against wrk and autocannon in bench/keepalive.js; node:http's
// client cost about twice autocannon's CPU a request, most of it its per-request objects.
//   connections: a virtual user's own (the closed loop's, a multi-step flow's), or a shared
//   pool's that an arrival takes when one has room (the open loop's --keepalive).
const { Connection } = require('./connection');
const { H2Connection } = require('./h2-connection');
const { requestBytes } = require('./request-bytes');

// A pool of connections to one target: an arrival takes one with room (the last freed
// first, so a few stay busy and the rest idle), or opens a new one.
class Pool {
  constructor(engine, url) {
    this.engine = engine;
    this.url = url;
    this.free = [];
  }

  take() {
    while (this.free.length) {
      const c = this.free.pop();
      c.listed = false;
      if (c.hasRoom) return c;
    }
    return this.engine.connection(this.url, (c) => this.give(c));
  }

  give(c) {
    if (!c.listed && c.hasRoom) {
      c.listed = true;
      this.free.push(c);
    }
  }
}

// tls: { client (./../tls-client.js), onHandshake(info), http2 } for an https:// target
// (--tls, --http2): connections over TLS, timed, and HTTP/2 sessions in place of HTTP/1.1.
function createEngine({ pipelining = 1, timeoutMs, tls = null }) {
  const all = new Set();
  const pools = new Map();
  const stats = { opened: 0 };
  // Time-outs: a sweep over the connections, not a timer per request (a timer each cost
  // more than the rest of a request's bookkeeping).
  const every = Math.max(50, Math.min(1000, Math.round(timeoutMs / 10)));
  const sweeper = setInterval(() => {
    const before = performance.timeOrigin + performance.now() - timeoutMs;
    for (const c of all) c.expire(before);
  }, every);
  sweeper.unref();

  const engine = {
    stats,
    // A connection of its own, for a virtual user (onFree: called when it has room again;
    // oneShot: for one request, which asks the server to close it after its answer).
    connection(url, onFree = null, { oneShot = false } = {}) {
      const c =
        tls?.http2 && url.protocol === 'https:'
          ? new H2Connection({
              url,
              streams: pipelining,
              onFree,
              stats,
              tlsc: tls.client,
              onHandshake: tls.onHandshake,
            })
          : new Connection({ url, pipelining, onFree, stats, tls });
      c.oneShot = oneShot;
      all.add(c);
      return c;
    },
    // A connection with room from the target's shared pool; the request returns it there.
    pooled(url) {
      let p = pools.get(url.href);
      if (!p) pools.set(url.href, (p = new Pool(engine, url)));
      const c = p.take();
      return c;
    },
    // One request on `conn`: done(res) or fail(code). res: { status, close, upstream,
    // upstreamMs, text }.
    send(conn, step, parts, sentAt, done, fail) {
      const method = parts.method || step.method;
      if (conn instanceof H2Connection) {
        conn.send({
          method,
          path: parts.path,
          headers: parts.headers,
          body: parts.body,
          wantText: Boolean(step.wantText),
          done,
          fail,
          sentAt,
        });
        if (conn.onFree && conn.hasRoom) conn.onFree(conn);
        return undefined;
      }
      let bytes;
      try {
        bytes = requestBytes(method, parts, conn.url.host, conn.oneShot);
      } catch (err) {
        return fail(err.code || 'EREQUEST');
      }
      conn.send({
        bytes,
        head: method === 'HEAD',
        wantText: Boolean(step.wantText),
        wantHeaders: Boolean(step.wantHeaders),
        done,
        fail,
        sentAt,
      });
      // A pooled connection with room left goes back for the next arrival at once.
      if (conn.onFree && conn.hasRoom) conn.onFree(conn);
      return undefined;
    },
    release(conn) {
      all.delete(conn);
      conn.close();
    },
    close() {
      clearInterval(sweeper);
      for (const c of all) c.close();
      all.clear();
      pools.clear();
    },
  };
  return engine;
}

module.exports = { createEngine };
