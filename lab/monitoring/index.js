'use strict';

const dgram = require('node:dgram');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startStatsd } = require('./statsd');
const { startCarbon } = require('./carbon');
const { assertFree, addressTowards } = require('../topology/ports');
const startSampler = require('./sampler');

// The monitoring of one run: StatsD (embedded, 1 s flush) feeding the run's own series file
// and Graphite when one is reachable; a resource sampler (cAdvisor's role) for every node
// and the load generator. Whatever cannot start is skipped and recorded as a missing
// source with its reason; the run goes on.
// Where the run's own listeners (StatsD, carbon) go: the run's host when it is this machine's
// (the embedded default), else this machine's address on the way to it. On the VM cluster
// LAB_HOST is the manager VM's address: binding StatsD there failed (EADDRNOTAVAIL) and was
// reported as "port 8083 (statsd) is already in use" though nothing held it (issue 44).
function isLocal(host) {
  if (['localhost', '0.0.0.0', '::', '::1'].includes(host) || /^127\./.test(host)) return true;
  return Object.values(os.networkInterfaces())
    .flat()
    .some((a) => a && a.address === host);
}
async function listenHost(host) {
  if (isLocal(host)) return { host, note: null };
  const local = await addressTowards(host);
  return local
    ? {
        host: local,
        note: `${host} (--host / LAB_HOST) is not this machine's address: listening on ${local}, this machine's address towards it`,
      }
    : {
        host: '127.0.0.1',
        note: `${host} (--host / LAB_HOST) is not this machine's address and no route leads to it: listening on 127.0.0.1`,
      };
}

// Graphite: off, someone else's carbon (host:port), or the run's own carbon-cache when StatsD
// runs. Returns { graphite: { host, port } | null, source, stop }.
async function startGraphite(o) {
  if (o.graphite === 'off') return { graphite: null, source: { ok: false, reason: 'turned off (--no-graphite)' } };
  if (o.graphite && o.graphite !== 'auto') {
    const [host, port] = o.graphite.split(':');
    const graphite = { host, port: Number(port) || 2003 };
    return { graphite, source: { ok: true, what: `external carbon at ${graphite.host}:${graphite.port}` } };
  }
  if (!o.statsd) return { graphite: null, source: undefined };
  let carbon;
  try {
    await assertFree(
      [
        { port: o.ports.carbon, role: 'carbon' },
        { port: o.ports.carbonPickle, role: 'carbon pickle' },
        { port: o.ports.carbonQuery, role: 'carbon query' },
      ],
      o.host,
    );
    carbon = await startCarbon({
      dir: o.graphiteDir,
      host: o.host,
      linePort: o.ports.carbon,
      picklePort: o.ports.carbonPickle,
      queryPort: o.ports.carbonQuery,
    });
  } catch (err) {
    carbon = { error: err.message };
  }
  if (carbon.error) return { graphite: null, source: { ok: false, reason: carbon.error } };
  return {
    graphite: { host: o.host, port: carbon.port },
    stop: carbon.stop,
    source: {
      ok: true,
      what: `carbon-cache on ${o.host}:${carbon.port}, whisper files in ${carbon.whisperDir}`,
      whisperDir: carbon.whisperDir,
    },
  };
}

// The run's own StatsD, feeding its series file and Graphite. Returns { statsd: { host,
// port, prefix } | null, source, stop }.
async function startOwnStatsd(o, graphite, note) {
  if (!o.statsd) return { statsd: null, source: { ok: false, reason: 'turned off (--no-statsd)' } };
  let started;
  try {
    await assertFree(
      [
        { port: o.ports.statsd, role: 'statsd', udp: true },
        { port: o.ports.statsdAdmin, role: 'statsd admin' },
      ],
      o.host,
    );
    started = await startStatsd({
      dir: path.join(o.resultsDir, 'statsd'),
      host: o.host,
      port: o.ports.statsd,
      mgmtPort: o.ports.statsdAdmin,
      seriesFile: path.join(o.resultsDir, 'statsd.jsonl'),
      graphite,
    });
  } catch (err) {
    started = { error: err.message };
  }
  if (started.error) return { statsd: null, source: { ok: false, reason: started.error } };
  return {
    statsd: { host: o.host, port: o.ports.statsd, prefix: o.prefix },
    stop: started.stop,
    source: {
      ok: true,
      what: `StatsD on ${o.host}:${o.ports.statsd} (1 s flush): the service's timers, the nodes' gauges, Artillery's intervals`,
      ...(note ? { note } : {}),
    },
  };
}

// options: { resultsDir, graphiteDir, host, ports, prefix, statsd: bool, graphite: 'auto'|'off'|'host:port', log }
async function startMonitoring(options) {
  const listen = await listenHost(options.host);
  const o = { ...options, host: listen.host };
  const sources = {
    artillery: { ok: true, what: "Artillery's per-interval and per-second client metrics" },
    nodes: { ok: true, what: 'CPU and memory of every process tree, sampled every second' },
  };
  const stops = [];
  const g = await startGraphite(o);
  const { graphite } = g;
  if (g.source) sources.graphite = g.source;
  if (g.stop) stops.push(g.stop);
  const own = await startOwnStatsd(o, graphite, listen.note);
  const { statsd } = own;
  sources.statsd = own.source;
  if (own.stop) stops.push(own.stop);
  // Graphite is fed through StatsD: without it, Graphite is missing too (keep an earlier reason).
  if (!statsd && !(sources.graphite && !sources.graphite.ok)) {
    sources.graphite = { ok: false, reason: 'no StatsD to feed it' };
  }

  const socket = statsd ? dgram.createSocket('udp4') : null;
  const send = (lines) => {
    if (!socket || !lines.length) return;
    socket.send(lines.join('\n'), statsd.port, statsd.host, () => {});
  };
  const nodesFile = path.join(o.resultsDir, 'nodes.jsonl');
  let roots = {};
  const samples = [];
  const sampler = startSampler(() => roots, {
    onSample: (s) => {
      samples.push(s);
      fs.appendFileSync(nodesFile, `${JSON.stringify(s)}\n`);
      const lines = [];
      for (const [name, n] of Object.entries(s.nodes)) {
        const key = `${o.prefix}.node.${name.replace(/\./g, '_')}`;
        lines.push(`${key}.cpu_pct:${n.cpuPct}|g`, `${key}.rss_mib:${n.rssMiB}|g`);
      }
      send(lines);
    },
  });

  return {
    sources,
    statsd,
    samples,
    // StatsD lines of others' figures (the runtime probe's, lab/probe/collector.js).
    send,
    // What the sampler follows: a function returning { name: pid } (re-read each second).
    watch(fn) {
      roots = fn;
    },
    async stop() {
      if (this.stopped) return;
      this.stopped = true;
      sampler.stop();
      if (socket) socket.close();
      // StatsD first, so its last flush still reaches carbon.
      for (const fn of stops.reverse()) await fn();
    },
  };
}

module.exports = startMonitoring;
