'use strict';

// One kept-alive HTTP/1.1 connection of the keep-alive engine: requests written as prepared
// bytes (./request-bytes.js), their responses read by the lab's small parser
// (./response-parser.js), up to `pipelining` in flight, answered in order. It opens its
// socket when first asked and again after the server closed it, so a pool or a virtual
// user can hold it for a whole run. Plain TCP reads into one buffer the thread shares
// (net's `onread`: no Buffer and no 'data' event per read); TLS reads by events.
const net = require('node:net');
const { ResponseParser } = require('./response-parser');

// One read buffer for every plain connection of the thread: reads run one at a time, and the
// parser copies what it keeps.
const SHARED = Buffer.allocUnsafe(64 * 1024);

// A socket idle this long is not reused: a new one is opened for the next request. Servers close
// idle kept-alive connections (Node's after 5 s), and a close that arrives while this thread is
// busy (a capture parsing a page) is read only after the next request was written on the dead
// socket: it failed with ECONNRESET, a request the server never received. Under the server's
// time-out, as keep-alive agents do (agentkeepalive's free-socket time-out is 4 s).
const IDLE_REUSE_MS = 4000;

class Connection {
  // o: { url (URL), pipelining, onFree(conn) (it has room again), stats ({ opened }), tls
  //      ({ client, onHandshake }: an https:// target's connections, ./../tls-client.js),
  //      idleMs (IDLE_REUSE_MS) }
  constructor(o) {
    this.url = o.url;
    this.idleMs = o.idleMs ?? IDLE_REUSE_MS;
    this.idleAt = 0; // when its last answer left nothing in flight (performance.now())
    this.tls = o.tls || null;
    this.pipelining = o.pipelining || 1;
    this.onFree = o.onFree || null;
    this.stats = o.stats || { opened: 0 };
    this.socket = null;
    this.parser = null;
    this.inflight = []; // { bytes, head, wantText, done(res), fail(code), sentAt }
    this.closed = false;
  }

  get hasRoom() {
    return !this.closed && this.inflight.length < this.pipelining;
  }

  // Sends one request: done(res) with its response, or fail(code).
  send(r) {
    if (this.closed) return r.fail('ECANCELED');
    // (Nothing in flight: retiring it sends nothing again.)
    if (this.socket && !this.inflight.length && performance.now() - this.idleAt >= this.idleMs) this.retire();
    if (!this.socket) this.open();
    this.inflight.push(r);
    this.parser.expect(r);
    this.socket.write(r.bytes);
  }

  open() {
    const { hostname, port, protocol } = this.url;
    const parser = new ResponseParser((res) => this.answered(res));
    this.parser = parser;
    let socket;
    if (protocol === 'https:') {
      // Checked against the run's CA (never verification turned off in silence), timed,
      // resumed: ./../tls-client.js. Without the run's own client (a redirect to another
      // https:// origin, a hook), the machine's CAs.
      const client = this.tls?.client ?? require('../tls-client').tlsClient();
      socket = client.connect(this.url, this.tls?.onHandshake ?? null);
      socket.on('data', (chunk) => this.read(parser, socket, chunk));
    } else {
      socket = net.connect({
        host: hostname,
        port: Number(port) || 80,
        onread: { buffer: SHARED, callback: (n, buf) => this.read(parser, socket, buf.subarray(0, n)) },
      });
    }
    socket.setNoDelay(true);
    this.stats.opened += 1;
    this.socket = socket;
    let error = null;
    socket.on('error', (err) => (error = err.code || 'ESOCKET'));
    socket.on('close', () => this.lost(socket, parser, error));
  }

  read(parser, socket, buf) {
    if (socket !== this.socket) return;
    // (TLS runs time each answer's first byte: its request's, the oldest in flight.)
    if (this.tls && this.inflight.length && this.inflight[0].firstAt === undefined)
      this.inflight[0].firstAt = performance.timeOrigin + performance.now();
    try {
      parser.feed(buf);
    } catch (err) {
      // Only this socket's: an answer it parsed may have moved the connection to a new one.
      if (socket === this.socket) this.drop(err.code || 'EPARSE');
    }
  }

  answered(res) {
    const r = this.inflight.shift();
    if (!this.inflight.length) this.idleAt = performance.now();
    if (r.firstAt !== undefined) res.firstAt = r.firstAt;
    if (res.close) this.retire();
    r.done(res);
    if (this.onFree && this.hasRoom) this.onFree(this);
  }

  // The server said it closes after this answer: the requests written after it were not
  // read, and go again on a new socket (their time keeps running from their first send).
  retire() {
    const socket = this.socket;
    this.socket = null;
    this.parser = null;
    if (socket) socket.destroy();
    const again = this.inflight.splice(0);
    for (const r of again) this.send(r);
  }

  // The socket went away: what was in flight on it fails with the socket's error (the
  // connection opens again for the next request).
  lost(socket, parser, error) {
    if (socket !== this.socket) return;
    // (A body read up to the close completes here, and its answer may retire the socket.)
    const cutShort = parser.end();
    if (socket !== this.socket) return;
    this.socket = null;
    this.parser = null;
    const failed = this.inflight.splice(0);
    const code = error || (cutShort || failed.length ? 'ECONNRESET' : null);
    for (const r of failed) r.fail(code);
    if (this.onFree && this.hasRoom) this.onFree(this);
  }

  // Ends the socket now, failing what is in flight with `code` (a time-out, a parse error).
  drop(code) {
    const socket = this.socket;
    if (!socket) return;
    this.socket = null;
    this.parser = null;
    socket.destroy();
    const failed = this.inflight.splice(0);
    for (const r of failed) r.fail(code);
    if (this.onFree && this.hasRoom) this.onFree(this);
  }

  // The oldest request in flight was sent before `before`: the connection is dropped, and
  // every request on it fails with ETIMEDOUT (its answers would come after theirs anyway).
  expire(before) {
    if (this.inflight.length && this.inflight[0].sentAt < before) this.drop('ETIMEDOUT');
  }

  close() {
    this.closed = true;
    this.drop('ECANCELED');
  }
}

module.exports = { Connection, IDLE_REUSE_MS };
