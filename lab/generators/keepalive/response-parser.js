'use strict';

// An incremental HTTP/1.1 response parser for the keep-alive engine (./connection.js): fed
// the bytes of one connection as they arrive, it calls onResponse once per whole response,
// in order, with only what the lab records (status, whether the server closes, the entry's
// X-Lab-Upstream headers, and the body's text when a capture asks for it). node:http's
// parser builds an IncomingMessage, a headers object and a stream per response: most of the
// 60-70 µs a kept-alive request cost there (bench/README.md, keepalive.js). It reads bodies
// by Content-Length, chunked transfer coding, or up to the close; skips 1xx interim answers;
// knows a HEAD, 204 and 304 have none. It keeps no reference to a fed buffer (the connection
// reads every socket into one shared buffer): what it needs across calls, it copies.
const { LIMITS } = require('../../scenario/limits');

const CRLF = Buffer.from('\r\n');
const HEAD_END = Buffer.from('\r\n\r\n');
const HTTP = Buffer.from('HTTP/');
const MAX_HEAD = 80 * 1024;

const S_HEAD = 0;
const S_LENGTH = 1;
const S_CHUNK_SIZE = 2;
const S_CHUNK_DATA = 3;
const S_CHUNK_CRLF = 4;
const S_TRAILERS = 5;
const S_UNTIL_CLOSE = 6;

class ParseError extends Error {
  constructor(message, code = 'EPARSE') {
    super(message);
    this.code = code;
  }
}

class ResponseParser {
  // onResponse({ status, close, upstream, upstreamMs, text }): text is null unless the
  // request was expected with wantText.
  constructor(onResponse) {
    this.onResponse = onResponse;
    this.expected = []; // the requests sent, in order
    this.state = S_HEAD;
    this.pending = null; // bytes kept between feeds (a head or a chunk-size line not whole yet)
    this.res = null;
    this.left = 0;
    this.parts = null;
    this.kept = 0; // bytes of this body kept for a capture
    this.finished = false; // the server said it closes: what follows is not an answer
  }

  // A request was written ({ head: a HEAD, wantText: its body is wanted }): its response
  // comes after those of the requests before it.
  expect(request) {
    this.expected.push(request);
  }

  get waiting() {
    return this.expected.length;
  }

  // Bytes read from the connection. Throws ParseError on what is not HTTP/1.x.
  feed(buf) {
    let at = 0;
    if (this.pending) {
      buf = Buffer.concat([this.pending, buf]);
      this.pending = null;
    }
    while (at < buf.length) {
      // After an answer that closes the connection, the rest is stray bytes: never read as
      // another answer (they made half of all requests EPARSE, and a new socket with them).
      if (this.finished) return undefined;
      switch (this.state) {
        case S_HEAD: {
          // Not HTTP from its first bytes (an SSH banner, with no blank line to wait for):
          // said at once, not after the request's time-out.
          const n = Math.min(HTTP.length, buf.length - at);
          if (buf.compare(HTTP, 0, n, at, at + n) !== 0) throw new ParseError('not an HTTP/1.x response');
          const end = buf.indexOf(HEAD_END, at);
          if (end < 0) return this.keep(buf, at, 'a response head');
          this.head(buf.latin1Slice(at, end));
          at = end + 4;
          break;
        }
        case S_LENGTH: {
          const n = Math.min(this.left, buf.length - at);
          if (this.parts) this.keepBody(buf.subarray(at, at + n));
          this.left -= n;
          at += n;
          if (this.left === 0) this.complete();
          break;
        }
        case S_CHUNK_SIZE: {
          const eol = buf.indexOf(CRLF, at);
          if (eol < 0) return this.keep(buf, at, 'a chunk size');
          const size = parseInt(buf.latin1Slice(at, eol), 16);
          if (!Number.isFinite(size) || size < 0) throw new ParseError('a chunk size that is not hexadecimal');
          at = eol + 2;
          if (size === 0) this.state = S_TRAILERS;
          else {
            this.left = size;
            this.state = S_CHUNK_DATA;
          }
          break;
        }
        case S_CHUNK_DATA: {
          const n = Math.min(this.left, buf.length - at);
          if (this.parts) this.keepBody(buf.subarray(at, at + n));
          this.left -= n;
          at += n;
          if (this.left === 0) {
            this.left = 2;
            this.state = S_CHUNK_CRLF;
          }
          break;
        }
        case S_CHUNK_CRLF: {
          const n = Math.min(this.left, buf.length - at);
          this.left -= n;
          at += n;
          if (this.left === 0) this.state = S_CHUNK_SIZE;
          break;
        }
        case S_TRAILERS: {
          // Trailer lines, then an empty line: the response's end.
          const eol = buf.indexOf(CRLF, at);
          if (eol < 0) return this.keep(buf, at, 'a trailer');
          const empty = eol === at;
          at = eol + 2;
          if (empty) this.complete();
          break;
        }
        case S_UNTIL_CLOSE: {
          if (this.parts) this.keepBody(buf.subarray(at));
          at = buf.length;
          break;
        }
        default:
          throw new ParseError(`state ${this.state}`);
      }
    }
    return undefined;
  }

  // The connection ended: a body read up to the close is whole; anything else mid-way is not.
  // Returns whether a response was cut short.
  end() {
    if (this.state === S_UNTIL_CLOSE) {
      this.complete();
      return false;
    }
    return this.state !== S_HEAD || this.pending !== null;
  }

  // A body kept for a capture, up to its limit (an endless chunked body once grew the
  // generator to 1.2 GB and an OOM kill).
  keepBody(bytes) {
    this.kept += bytes.length;
    if (this.kept > LIMITS.capturedBodyBytes) {
      throw new ParseError(`a body to capture from over ${LIMITS.capturedBodyBytes / 2 ** 20} MiB`, 'EBODYSIZE');
    }
    this.parts.push(Buffer.from(bytes));
  }

  keep(buf, at, what) {
    if (buf.length - at > MAX_HEAD) throw new ParseError(`${what} over ${MAX_HEAD} bytes`);
    this.pending = Buffer.from(buf.subarray(at));
  }

  head(text) {
    if (!text.startsWith('HTTP/1.')) throw new ParseError('not an HTTP/1.x response');
    const status = (text.charCodeAt(9) - 48) * 100 + (text.charCodeAt(10) - 48) * 10 + (text.charCodeAt(11) - 48);
    if (!(status >= 100 && status <= 999)) throw new ParseError('no status code');
    if (!this.expected.length) throw new ParseError('a response no request asked for');
    // 1xx (but 101) are interim: the final answer follows.
    if (status < 200 && status !== 101) return;
    let length = -1;
    let chunked = false;
    let close = text.charCodeAt(7) === 48; // HTTP/1.0 closes unless it says keep-alive
    let upstream = null;
    let upstreamMs = null;
    let upstreamS = null;
    const req = this.expected[0];
    // Every header, as node:http names them, when the request wants them (a header capture,
    // the expect plugin, a processor); else only those the lab reads.
    const all = req.wantHeaders ? {} : null;
    let headers = null;
    let at = text.indexOf('\r\n') + 2;
    while (at > 1 && at < text.length) {
      let eol = text.indexOf('\r\n', at);
      if (eol < 0) eol = text.length;
      const colon = text.indexOf(':', at);
      if (colon > at && colon < eol) {
        const len = colon - at;
        // Only the few headers the lab reads, told apart by length and a letter or two before
        // any string is made: content-length, connection, content-type, content-encoding,
        // transfer-encoding, location, set-cookie, x-lab-upstream*.
        const c0 = text.charCodeAt(at) | 0x20;
        const wanted =
          all !== null ||
          (c0 === 99 && (len === 14 || len === 10 || len === 12 || len === 16)) ||
          (c0 === 116 && len === 17) ||
          (c0 === 108 && len === 8) ||
          (c0 === 115 && len === 10) ||
          (c0 === 120 && len >= 14 && len <= 17 && (text.charCodeAt(at + 2) | 0x20) === 108);
        if (wanted) {
          const name = text.slice(at, colon).toLowerCase();
          const value = text.slice(colon + 1, eol).trim();
          if (name === 'content-length') length = Number(value);
          else if (name === 'transfer-encoding') chunked = /(^|,)\s*chunked\s*$/i.test(value);
          else if (name === 'connection') {
            const v = value.toLowerCase();
            if (v.includes('close')) close = true;
            else if (v.includes('keep-alive')) close = false;
          } else if (name === 'x-lab-upstream') upstream = value;
          else if (name === 'x-lab-upstream-ms') upstreamMs = value;
          else if (name === 'x-lab-upstream-s') upstreamS = value;
          if (all !== null || KEPT.has(name)) {
            headers ??= all ?? {};
            addHeader(headers, name, value);
          }
        }
      }
      at = eol + 2;
    }
    this.res = {
      status,
      close,
      upstream,
      upstreamMs: upstreamTime(upstreamMs, upstreamS),
      text: null,
      headers: headers ?? all ?? NO_HEADERS,
    };
    this.parts = req.wantText ? [] : null;
    if (req.head || status === 204 || status === 304 || status === 101) return this.complete();
    if (chunked) {
      this.state = S_CHUNK_SIZE;
      return undefined;
    }
    if (length >= 0 && Number.isSafeInteger(length)) {
      if (length === 0) return this.complete();
      this.left = length;
      this.state = S_LENGTH;
      return undefined;
    }
    if (length !== -1) throw new ParseError('a Content-Length that is not a number');
    // Neither: the body runs to the close.
    this.res.close = true;
    this.state = S_UNTIL_CLOSE;
    return undefined;
  }

  complete() {
    const res = this.res;
    if (this.parts) res.text = decoded(Buffer.concat(this.parts), res.headers['content-encoding']);
    this.res = null;
    this.parts = null;
    this.kept = 0;
    this.state = S_HEAD;
    this.expected.shift();
    if (res.close) this.finished = true;
    this.onResponse(res);
  }
}

// The headers kept of every answer: a redirect's, a cookie, the body's type and encoding.
const KEPT = new Set(['location', 'set-cookie', 'content-type', 'content-encoding']);
const NO_HEADERS = Object.freeze({});

// A header into node:http's shape: set-cookie a list, a repeated one joined by ", ".
function addHeader(headers, name, value) {
  if (name === 'set-cookie') (headers[name] ??= []).push(value);
  else headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
}

// A body's text, decompressed as Artillery's client does when the server compressed it (it
// asks for gzip, deflate, br, and zstd where Node has it).
function decoded(buf, encoding) {
  if (!encoding || !buf.length) return buf.toString('utf8');
  const zlib = require('node:zlib');
  try {
    const e = encoding.toLowerCase().trim();
    if (e === 'gzip' || e === 'x-gzip') return zlib.gunzipSync(buf).toString('utf8');
    if (e === 'deflate') return zlib.inflateSync(buf).toString('utf8');
    if (e === 'br') return zlib.brotliDecompressSync(buf).toString('utf8');
    if (e === 'zstd' && zlib.zstdDecompressSync) return zlib.zstdDecompressSync(buf).toString('utf8');
  } catch {
    // not what it says it is: the bytes as they came
  }
  return buf.toString('utf8');
}

// The entry's time to the replica's answer: X-Lab-Upstream-Ms (Caddy, the node balancer) or
// -S (nginx's $upstream_header_time, in seconds; "0.002, 0.011" after a retry: the last).
function upstreamTime(ms, s) {
  const raw = ms ?? s;
  if (raw === null) return null;
  const comma = raw.lastIndexOf(',');
  const v = Number(comma < 0 ? raw : raw.slice(comma + 1));
  if (!Number.isFinite(v) || v < 0) return null;
  return ms !== null ? v : v * 1000;
}

module.exports = { ResponseParser, ParseError, upstreamTime, decoded };
