'use strict';

const fs = require('node:fs');
const dgram = require('node:dgram');

// Artillery plugin of the lab, loaded from ARTILLERY_PLUGIN_PATH into the script it runs
// (the lab's catalogue, or a user's own script, otherwise run as Artillery itself would).
// In Artillery's workers it adds the lab's hooks to every scenario (./hooks.js): arrivals,
// requests and answers per wall-clock second, each answer's time in that second's histogram,
// and each request's own figures by name. In the main process it hands the lab each report
// as it happens: one JSON line per event (phase started/completed, each 10 s interval's
// stats, done) appended to the file named in config.plugins.lab.file, which the lab reads
// for its live progress line and keeps as the run's time series.
function LabPlugin(script, events) {
  const file = script.config.plugins && script.config.plugins.lab && script.config.plugins.lab.file;
  if (!file) return;
  // (Artillery 2 loads plugins in its workers too, which run the virtual users.)
  if (typeof process.env.LOCAL_WORKER_ID !== 'undefined') {
    require('./hooks').addHooks(script);
    return;
  }
  const write = (type, data) => {
    fs.appendFileSync(file, `${JSON.stringify({ type, at: Date.now(), ...data })}\n`);
  };
  events.on('phaseStarted', (phase) => write('phaseStarted', { phase: strip(phase) }));
  events.on('phaseCompleted', (phase) => write('phaseCompleted', { phase: strip(phase) }));
  const publish = statsdPublisher(script.config.plugins.lab.statsd);
  events.on('stats', (stats) => {
    write('stats', { stats: plain(stats) });
    publish(stats);
  });
  events.on('done', () => write('done', {}));
  // Artillery's own verdict, for the lab to follow: its checks (the ensure plugin's, each
  // with its result) and the exit code it would end with (1 for a failed check, 21 for a
  // failed expectation, the code of a failure), written at its shutdown, after its checks
  // ran: the lab ends Artillery then, without its ~13 s offline telemetry wait.
  const g = global.artillery;
  if (g && g.globalEvents && typeof g.ext === 'function') {
    g.globalEvents.on('checks', (checks) =>
      write('checks', {
        checks: (checks || []).map((c) => ({ original: c.original, result: c.result, strict: c.strict !== false })),
      }),
    );
    g.ext({
      ext: 'onShutdown',
      method: async (opts) => write('verdict', { exitCode: g.suggestedExitCode || opts?.exitCode || 0 }),
    });
  }
  this.cleanup = (done) => publish.close(done);
}

// Like the publish-metrics StatsD reporter: each interval's counters as StatsD counters,
// and its response-time summary as gauges (one value per 10 s interval, computed by
// Artillery from that interval's histogram; not to be averaged across intervals).
function statsdPublisher(cfg) {
  if (!cfg) return Object.assign(() => {}, { close: (done) => done() });
  const socket = dgram.createSocket('udp4');
  const name = (k) => k.replace(/[^A-Za-z0-9_-]+/g, '_');
  const publish = (stats) => {
    const lines = [];
    for (const [k, v] of Object.entries(stats.counters || {})) {
      if (!k.startsWith('lab.')) lines.push(`${cfg.prefix}.${name(k)}:${v}|c`);
    }
    const rt = stats.summaries && stats.summaries['http.response_time'];
    if (rt)
      for (const q of ['min', 'median', 'p95', 'p99', 'max']) lines.push(`${cfg.prefix}.response_time.${q}:${rt[q]}|g`);
    // Small packets: StatsD reads one datagram at a time.
    for (let i = 0; i < lines.length; i += 20)
      socket.send(lines.slice(i, i + 20).join('\n'), cfg.port, cfg.host, () => {});
  };
  publish.close = (done) => socket.close(() => done());
  return publish;
}

const strip = (phase) => ({
  index: phase.index,
  name: phase.name,
  duration: phase.duration,
  arrivalRate: phase.arrivalRate,
  rampTo: phase.rampTo,
});

// Only the figures: counters, rates and the per-interval summaries (percentiles Artillery
// computed from the interval's own histogram).
const plain = (s) => ({
  period: Number(s.period),
  firstMetricAt: s.firstMetricAt,
  lastMetricAt: s.lastMetricAt,
  counters: s.counters,
  rates: s.rates,
  summaries: s.summaries,
});

// Version 2 plugin: gets the whole script and Artillery 2's metrics format.
module.exports = { Plugin: LabPlugin, LEGACY_METRICS_FORMAT: false };
