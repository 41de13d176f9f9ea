'use strict';

const net = require('node:net');
const dgram = require('node:dgram');
const { labError } = require('../../common/errors');

// Every port the lab uses derives from one base, below the ephemeral range (32768+) so a
// client's outgoing connection can never hold one of them.
const DEFAULT_BASE = 8080;
const OFFSETS = {
  // The entry balancer's port, whatever its kind: where clients go.
  entry: 0,
  bbox1: 1,
  bbox2: 2,
  statsd: 3,
  statsdAdmin: 4,
  carbon: 5,
  carbonPickle: 6,
  graphiteWeb: 7,
  carbonQuery: 8,
  hub: 9,
  // Where load nodes reach the run (--load-nodes): between the replicas (10-41) and the edges.
  coordinator: 42,
  // The data stores beside your service (--with, lab/stores/).
  postgres: 43,
  redis: 44,
  // The runtime probe's collector (UDP): every Node process of the service sends it a
  // datagram a second (probe/preload.js, lab/probe/).
  probe: 45,
};
const FIRST_REPLICA = 10;
// Caching edges (the cdn row) after the most replicas a deployment may have (32).
const FIRST_EDGE = 50;
const MAX_EDGES = 16;

function planPorts(base, replicas, edges = 0) {
  const top = FIRST_EDGE + MAX_EDGES;
  if (!Number.isInteger(base) || base < 1024 || base + top > 32767) {
    throw labError('LAB_ERR_FLAG_VALUE', 'port-base', `"${base}"`, `an integer from 1024 to ${32767 - top}`);
  }
  const plan = { base };
  for (const [role, off] of Object.entries(OFFSETS)) plan[role] = base + off;
  plan.replicas = Array.from({ length: replicas }, (_, i) => base + FIRST_REPLICA + i);
  plan.edges = Array.from({ length: edges }, (_, i) => base + FIRST_EDGE + i);
  return Object.freeze(plan);
}

// Free: true; held: false; an address that is not this machine's: 'not-local' (a port
// nobody holds, which must not be reported as one in use).
const busy = (err) => (err.code === 'EADDRNOTAVAIL' ? 'not-local' : false);

function tcpFree(port, host) {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', (err) => resolve(busy(err)));
    s.listen({ port, host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

// A port of another machine (a cluster node): free when nothing accepts a connection there
// (refused, or no answer within timeoutMs).
function remoteTcpFree(port, host, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const s = net.connect({ port, host });
    const done = (free) => {
      s.destroy();
      resolve(free);
    };
    s.setTimeout(timeoutMs, () => done(true));
    s.once('connect', () => done(false));
    s.once('error', () => done(true));
  });
}

function udpFree(port, host) {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    s.once('error', (err) => resolve(busy(err)));
    s.bind({ port, address: host, exclusive: true }, () => s.close(() => resolve(true)));
  });
}

// Checks each { port, role, udp } is free on host; the first busy one throws, naming it (or
// saying the host is not this machine's).
async function assertFree(entries, host) {
  for (const { port, role, udp } of entries) {
    const free = udp ? await udpFree(port, host) : await tcpFree(port, host);
    if (free === 'not-local') throw labError('LAB_ERR_NOT_LOCAL', host, port, role);
    if (!free) throw labError('LAB_ERR_PORT_IN_USE', port, role);
  }
}

// This machine's address on the way to host (the kernel's pick of a source address), or null.
// (A UDP "connect" sends nothing: the kernel picks the route and so the source address.)
function addressTowards(host) {
  return new Promise((resolve) => {
    const s = dgram.createSocket('udp4');
    const done = (address) => {
      s.close();
      resolve(address);
    };
    s.once('error', () => done(null));
    s.connect(9, host, () => done(s.address().address));
  });
}

module.exports = {
  planPorts,
  addressTowards,
  assertFree,
  tcpFree,
  remoteTcpFree,
  DEFAULT_BASE,
  OFFSETS,
  FIRST_REPLICA,
  FIRST_EDGE,
  MAX_EDGES,
};
