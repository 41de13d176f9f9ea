'use strict';

const dgram = require('node:dgram');
const fs = require('node:fs');
const { VERSION } = require('../../probe/preload');

// The lab's collector of the runtime probe (probe/preload.js): a UDP listener for one run,
// at the address the deployment's processes were given (state.probe, by its runtime). It
// keeps every datagram of its version in memory for the run's figures (./figures.js), writes
// each to a file for the report's charts, and hands each to onDatagram (the run's StatsD,
// for Grafana). Bounded: a datagram over MAX_BYTES or not one of the probe's is dropped and
// counted, and past maxDatagrams (an endurance run of 32 processes is ~115,000 an hour)
// the rest are counted, not kept.
const MAX_BYTES = 4096;

// listen: [{ host, port }]; resolves { datagrams, stats(), close() } or { error } (the port
// held, the address not this machine's), having bound nothing.
async function startCollector({ listen, file = null, maxDatagrams = 500000, onDatagram = null }) {
  const sockets = [];
  const closeAll = () => {
    for (const s of sockets) {
      try {
        s.close();
      } catch {
        // already closed
      }
    }
  };
  for (const { host, port } of listen) {
    const s = dgram.createSocket('udp4');
    sockets.push(s);
    const bound = await new Promise((resolve) => {
      s.once('error', (err) => resolve(err));
      s.bind({ address: host, port, exclusive: true }, () => resolve(null));
    });
    if (bound) {
      closeAll();
      const why =
        bound.code === 'EADDRINUSE'
          ? 'in use'
          : bound.code === 'EADDRNOTAVAIL'
            ? "not this machine's address"
            : bound.message;
      return { error: `the runtime probe's port ${port} on ${host}: ${why}` };
    }
  }
  const datagrams = [];
  const counts = { received: 0, rejected: 0, dropped: 0 };
  // Where each process sends from (the socket that heard it, its address), for the words the
  // collector sends back (a profile asked: ./profiles.js), and who listens for those words.
  const senders = new Map();
  const listeners = new Set();
  const out = file ? fs.createWriteStream(file, { flags: 'a' }) : null;
  out?.on('error', () => {});
  const onMessage = (socket, msg, rinfo) => {
    counts.received += 1;
    let d = null;
    if (msg.length <= MAX_BYTES) {
      try {
        d = JSON.parse(msg.toString('utf8'));
      } catch {
        d = null;
      }
    }
    if (!d || typeof d !== 'object' || d.v !== VERSION || typeof d.node !== 'string' || !Number.isInteger(d.pid)) {
      counts.rejected += 1;
      return;
    }
    d.at = Date.now();
    const sender = { node: d.node, pid: d.pid, role: d.role, w: d.w ?? null, socket, rinfo, at: d.at };
    senders.set(`${d.node}\u0000${d.pid}`, sender);
    for (const l of listeners) l(sender);
    if (datagrams.length >= maxDatagrams) {
      counts.dropped += 1;
      return;
    }
    datagrams.push(d);
    out?.write(`${JSON.stringify(d)}\n`);
    if (onDatagram) {
      try {
        onDatagram(d);
      } catch {
        // the forward is a convenience; the figures are kept
      }
    }
  };
  for (const s of sockets) {
    s.on('message', (msg, rinfo) => onMessage(s, msg, rinfo));
    s.on('error', () => {});
  }
  let closed = false;
  return {
    datagrams,
    stats: () => ({ ...counts, kept: datagrams.length }),
    // The processes heard from since `since` (ms), with where they send from.
    senders: (since = 0) => [...senders.values()].filter((x) => x.at >= since),
    // Calls fn(sender) for every datagram from now on; returns how to stop.
    onSender(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
    // Words back to a process, on the socket it sends to (its probe takes them from that port).
    tell(sender, obj) {
      try {
        sender.socket.send(JSON.stringify(obj), sender.rinfo.port, sender.rinfo.address, () => {});
      } catch {
        // the socket closed meanwhile
      }
    },
    listen,
    async close() {
      if (closed) return;
      closed = true;
      closeAll();
      if (out) await new Promise((resolve) => out.end(resolve));
    },
  };
}

// The StatsD gauges of one datagram, under the run's prefix: per node and process, as the
// dashboard's "event loop" panels read them (compose/monitoring/grafana/dashboards/lab-run.json).
function statsdLines(prefix, d) {
  const who = d.role === 'worker' && d.w != null ? `worker-${d.w}` : d.role === 'primary' ? 'primary' : `pid-${d.pid}`;
  const key = `${prefix}.node.${d.node.replace(/[.\s]/g, '_')}.loop.${who}`;
  const busy = (d.elu[0] || 0) + (d.elu[1] || 0);
  const gcMs = Object.values(d.gc || {}).reduce((a, [, ms]) => a + ms, 0);
  return [
    ...(busy > 0 ? [`${key}.utilization:${Math.round((d.elu[0] / busy) * 1000) / 1000}|g`] : []),
    `${key}.delay_p99_ms:${d.d[3] ?? 0}|g`,
    `${key}.gc_ms:${Math.round(gcMs * 10) / 10}|g`,
    `${key}.heap_used_mib:${d.heap?.[0] ?? 0}|g`,
  ];
}

module.exports = { startCollector, statsdLines, MAX_BYTES };
