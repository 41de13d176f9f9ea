'use strict';

// Your service listening on 127.0.0.1 alone inside its containers: the entry's nginx, in a
// container of its own, then reaches no replica (502) however long the lab waits, and the
// fix is yours (listen(PORT), not listen(PORT, '127.0.0.1')). Read from the kernel's table of
// each replica's sockets (/proc/net/tcp and tcp6 in its container), so the deployment fails
// with the fix as soon as it is seen, not after the minute of readiness it would wait.

// The addresses a socket listens on at `port`, from /proc/net/tcp(6) text: ['127.0.0.1',
// '0.0.0.0', '::1', '::']. (Rows: "sl local rem st ...", local as hex address:port, the
// address in the kernel's byte order, 0A the LISTEN state.)
function listenersOn(text, port) {
  const out = [];
  for (const line of String(text).split('\n')) {
    const [, local, , st] = line.trim().split(/\s+/);
    if (st !== '0A' || !local?.includes(':')) continue;
    const [hex, portHex] = local.split(':');
    if (parseInt(portHex, 16) !== port) continue;
    out.push(hex.length === 8 ? ipv4(hex) : ipv6(hex));
  }
  return out;
}

// "0100007F" -> 127.0.0.1 (little-endian words).
const ipv4 = (hex) =>
  hex
    .match(/../g)
    .reverse()
    .map((b) => parseInt(b, 16))
    .join('.');
// 32 hex digits, four little-endian words: only the two forms that matter here are named.
function ipv6(hex) {
  if (/^0+$/.test(hex)) return '::';
  if (hex === '00000000000000000000000001000000') return '::1';
  return hex;
}

const LOOPBACK = new Set(['127.0.0.1', '::1']);

// Whether what listens at the port listens on loopback alone (nothing listening: not known).
const loopbackOnly = (addresses) =>
  addresses.length > 0 && addresses.every((a) => LOOPBACK.has(a) || a.startsWith('127.'));

module.exports = { listenersOn, loopbackOnly };
