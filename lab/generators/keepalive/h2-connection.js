'use strict';

const http2 = require('node:http2');
const { upstreamTime, decoded } = require('./response-parser');
const { LIMITS } = require('../../scenario/limits');

// One HTTP/2 connection of the lab's engines (--http2): a session over TLS (ALPN h2, opened by
// ./../tls-client.js, so its handshake is timed and its session resumed as HTTP/1.1's are),
// its requests as streams, up to `streams` in flight at once (a virtual user's one at a time;
// the closed loop's --streams N). The same interface as ./connection.js: send(r), hasRoom,
// expire(before), close(). It opens its session when first asked and again after it closed.
class H2Connection {
  // o: { url, streams, onFree(conn), stats ({ opened }), tlsc (./../tls-client.js), onHandshake }
  constructor(o) {
    this.url = o.url;
    this.pipelining = o.streams || 1;
    this.onFree = o.onFree || null;
    this.stats = o.stats || { opened: 0 };
    this.tlsc = o.tlsc;
    this.onHandshake = o.onHandshake || null;
    this.session = null;
    this.inflight = new Set();
    this.closed = false;
  }

  get hasRoom() {
    return !this.closed && this.inflight.size < this.pipelining;
  }

  open() {
    const url = this.url;
    const session = http2.connect(url.origin, {
      createConnection: () => this.tlsc.connect(url, this.onHandshake, { ALPNProtocols: ['h2'] }),
    });
    this.stats.opened += 1;
    this.session = session;
    session.on('error', () => {});
    session.on('close', () => {
      if (this.session === session) this.session = null;
    });
  }

  // One request as a stream: r = { method, path, headers, body, wantText, wantHeaders,
  // done(res), fail(code), sentAt }.
  send(r) {
    if (this.closed) return r.fail('ECANCELED');
    if (!this.session || this.session.closed || this.session.destroyed) this.open();
    const headers = { ':method': r.method, ':path': r.path };
    for (const [k, v] of Object.entries(r.headers || {})) {
      const name = k.toLowerCase();
      if (!HOP.has(name)) headers[name] = v;
    }
    let stream;
    try {
      stream = this.session.request(headers, { endStream: r.body === undefined || r.body === null });
    } catch (err) {
      return r.fail(err.code || 'EREQUEST');
    }
    this.inflight.add(r);
    r.stream = stream;
    let settled = false;
    const finish = (fn, v) => {
      if (settled) return;
      settled = true;
      this.inflight.delete(r);
      fn(v);
      if (this.onFree && this.hasRoom) this.onFree(this);
    };
    let res = null;
    const chunks = r.wantText ? [] : null;
    let size = 0;
    stream.on('response', (h) => {
      r.firstAt = performance.timeOrigin + performance.now();
      res = {
        status: h[':status'],
        headers: h,
        upstream: h['x-lab-upstream'] || null,
        upstreamMs: upstreamTime(h['x-lab-upstream-ms'] ?? null, h['x-lab-upstream-s'] ?? null),
        firstAt: r.firstAt,
      };
    });
    stream.on('data', (c) => {
      if (!chunks) return;
      size += c.length;
      if (size > LIMITS.capturedBodyBytes) {
        stream.close(http2.constants.NGHTTP2_CANCEL);
        finish(r.fail, 'EBODYSIZE');
        return;
      }
      chunks.push(c);
    });
    stream.on('end', () => {
      if (!res) return finish(r.fail, 'ECONNRESET');
      if (chunks) res.text = decoded(Buffer.concat(chunks), res.headers['content-encoding']);
      return finish(r.done, res);
    });
    stream.on('error', (err) =>
      finish(r.fail, err.code === 'ERR_HTTP2_STREAM_ERROR' ? 'ECONNRESET' : err.code || 'ESTREAM'),
    );
    stream.on('close', () => finish(r.fail, 'ECONNRESET'));
    if (r.body !== undefined && r.body !== null) stream.end(r.body);
    return undefined;
  }

  expire(before) {
    for (const r of this.inflight) {
      if (r.sentAt < before) {
        r.stream?.close(http2.constants.NGHTTP2_CANCEL);
        this.inflight.delete(r);
        r.fail('ETIMEDOUT');
      }
    }
  }

  close() {
    this.closed = true;
    for (const r of this.inflight) r.fail('ECANCELED');
    this.inflight.clear();
    if (this.session) this.session.destroy();
    this.session = null;
  }
}

// Headers HTTP/2 does not carry (RFC 9113, 8.2.2), and the Host its :authority replaces.
const HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

module.exports = { H2Connection };
