'use strict';

const fs = require('node:fs');

// Artillery plugin that hands the lab each report as it happens: one JSON line per event
// (phase started/completed, each 10 s interval's stats, done) appended to the file named
// in config.plugins.lab.file. The lab reads it for its live progress line and keeps it as
// the run's time series. Artillery loads it from ARTILLERY_PLUGIN_PATH.
function LabPlugin(script, events) {
  const file = script.config.plugins && script.config.plugins.lab && script.config.plugins.lab.file;
  if (!file) return;
  const write = (type, data) => {
    fs.appendFileSync(file, `${JSON.stringify({ type, at: Date.now(), ...data })}\n`);
  };
  events.on('phaseStarted', (phase) => write('phaseStarted', { phase: strip(phase) }));
  events.on('phaseCompleted', (phase) => write('phaseCompleted', { phase: strip(phase) }));
  events.on('stats', (stats) => write('stats', { stats: plain(stats) }));
  events.on('done', () => write('done', {}));
  this.cleanup = (done) => done();
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
