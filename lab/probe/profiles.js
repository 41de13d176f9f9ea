'use strict';

const crypto = require('node:crypto');
const net = require('node:net');
const { VERSION } = require('../../probe/preload');

// CPU profiles of a deployment's Node processes over a window (--profile), through the runtime
// probe (probe/preload.js) and its collector (./collector.js): every process the collector
// hears from while the window is open is told, on the port it sends to, to run V8's sampling
// profiler until the window's end, and it sends its profile back over TCP to the collector's
// address (the same host and port number: what every runtime already routes back to the lab).
// A process heard first in the middle of the window is told then, for the rest of it.
// Bounded: a profile over MAX_BYTES is dropped and counted, uploads wait GRACE_MS at most after
// the window's end, and only uploads with this window's id are kept.
const MAX_BYTES = 64 << 20;
const GRACE_MS = 15000;

// -> { id, end(): Promise<{ profiles: [{ node, pid, role, w, ms, profile }], told, missing,
//      dropped }> } or { error }.
async function startProfiles(collector, { ms, us = 1000 }) {
  const { host, port } = collector.listen[0];
  const id = crypto.randomBytes(8).toString('hex');
  const profiles = [];
  const told = new Map();
  let dropped = 0;
  const server = net.createServer((sock) => {
    let buf = [];
    let size = 0;
    sock.setTimeout(60000, () => sock.destroy());
    sock.on('data', (d) => {
      size += d.length;
      if (size > MAX_BYTES) {
        dropped += 1;
        sock.destroy();
        buf = [];
        return;
      }
      buf.push(d);
    });
    sock.on('end', () => {
      const text = Buffer.concat(buf).toString('utf8');
      const nl = text.indexOf('\n');
      try {
        const head = JSON.parse(text.slice(0, nl));
        if (head.v !== VERSION || head.id !== id || !told.has(`${head.node}\u0000${head.pid}`)) return;
        profiles.push({ ...head, profile: JSON.parse(text.slice(nl + 1)) });
      } catch {
        dropped += 1;
      }
    });
    sock.on('error', () => {});
  });
  const bound = await new Promise((resolve) => {
    server.once('error', (err) => resolve(err));
    server.listen({ host, port, exclusive: true }, () => resolve(null));
  });
  if (bound)
    return {
      error: `the profiles' port ${port} (TCP) on ${host}: ${bound.code === 'EADDRINUSE' ? 'in use' : bound.message}`,
    };

  const until = Date.now() + ms;
  const tell = (sender) => {
    const key = `${sender.node}\u0000${sender.pid}`;
    const left = until - Date.now();
    // (Less than a second left is not a profile worth its cost.)
    if (told.has(key) || left < 1000) return;
    told.set(key, { node: sender.node, pid: sender.pid, role: sender.role, w: sender.w });
    collector.tell(sender, { v: VERSION, op: 'profile', id, ms: left, us, to: `${host}:${port}` });
  };
  // Those heard in the last seconds at once, the others as they are heard.
  for (const s of collector.senders(Date.now() - 3000)) tell(s);
  const stopListening = collector.onSender(tell);

  return {
    id,
    until,
    async end() {
      stopListening();
      const deadline = Math.max(until, Date.now()) + GRACE_MS;
      while (profiles.length < told.size && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => server.close(r));
      const have = new Set(profiles.map((p) => `${p.node}\u0000${p.pid}`));
      const missing = [...told].filter(([k]) => !have.has(k)).map(([, v]) => v);
      return { profiles, told: told.size, missing, dropped };
    },
  };
}

module.exports = { startProfiles, MAX_BYTES, GRACE_MS };
