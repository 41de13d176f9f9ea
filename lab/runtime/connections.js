'use strict';

const fs = require('node:fs');

// The TCP connections a port of this machine holds open, from the kernel's tables
// (/proc/net/tcp and tcp6), as `ss` reads them: how the lab knows a replica it took out of
// its entry has been drained (no client connection left, idle keep-alive ones included).
// Only this network namespace's (a container's are its own).
const ESTABLISHED = '01';

function parseTable(text, port) {
  let n = 0;
  for (const line of text.split('\n').slice(1)) {
    const f = line.trim().split(/\s+/);
    if (f.length < 4) continue;
    const local = f[1];
    if (f[3] !== ESTABLISHED) continue;
    if (parseInt(local.slice(local.lastIndexOf(':') + 1), 16) === port) n += 1;
  }
  return n;
}

// The established connections whose local end is `port` (a server's accepted ones).
function connectionsTo(port, { files = ['/proc/net/tcp', '/proc/net/tcp6'] } = {}) {
  let n = 0;
  for (const file of files) {
    try {
      n += parseTable(fs.readFileSync(file, 'utf8'), port);
    } catch {
      // no such table (no IPv6)
    }
  }
  return n;
}

module.exports = { connectionsTo, parseTable };
