'use strict';

// A request as the bytes a kept-alive connection writes: its line, Host, its headers and its
// body in one Buffer. A step's fixed parts (lab/generators/vu/flow.js: the same object
// for every virtual user) are turned into bytes once per host; a templated step's, each time.
const cache = new WeakMap();

// close: a one-request connection's (`connection: close`: the server closes it after its
// answer, as node:http's client without an agent asks).
function requestBytes(method, parts, host, close = false) {
  const key = close ? `${host} close` : host;
  let byHost = cache.get(parts);
  if (byHost) {
    const b = byHost.get(key);
    if (b) return b;
  }
  const bytes = build(method, parts, host, close);
  if (parts.fixed) {
    if (!byHost) cache.set(parts, (byHost = new Map()));
    byHost.set(key, bytes);
  }
  return bytes;
}

// What node:http refuses, refused alike (the request fails with its code, nothing is sent).
const invalid = (code, message) => Object.assign(new Error(message), { code });

// (Char codes rather than a regular expression with control characters in it, which the
// linter rightly questions.)
function hasChar(text, bad) {
  for (let i = 0; i < text.length; i++) if (bad(text.charCodeAt(i))) return true;
  return false;
}

function build(method, { path, headers, body }, host, close) {
  if (hasChar(path, (c) => c <= 0x20 || c === 0x7f))
    throw invalid('ERR_UNESCAPED_CHARACTERS', 'the path has blanks or controls');
  // (A Host header of the request's own, a virtual host, replaces the target's.)
  let head = `${method} ${path} HTTP/1.1\r\nhost: ${headers?.host ?? host}\r\n`;
  let length = false;
  for (const [k, v] of Object.entries(headers || {})) {
    if (k === 'host' || k === 'connection') continue;
    if (k === 'content-length') length = true;
    if (hasChar(String(v), (c) => c === 0x0d || c === 0x0a || c === 0))
      throw invalid('ERR_INVALID_CHAR', `header ${k} has a line break`);
    head += `${k}: ${v}\r\n`;
  }
  // A body always says its length: never chunked, so a server reads it whole.
  if (body && !length) head += `content-length: ${body.length}\r\n`;
  if (close) head += 'connection: close\r\n';
  head += '\r\n';
  return body && body.length ? Buffer.concat([Buffer.from(head), body]) : Buffer.from(head);
}

module.exports = { requestBytes };
