'use strict';

const { defineGenerator } = require('../plugin');
const { startOwn } = require('../own-process');
const { ownPlan, OWN_FLAGS, OWN_SUPPORTS } = require('../own-plan');

// The lab's open loop: the scenario's phases, each arrival a virtual user started at its
// due time and running its flow (lab/generators/fast-worker.js), µs HdrHistograms timed
// from each request's due time; worker threads when one cannot keep up.
module.exports = defineGenerator({
  name: 'fast',
  order: 1,
  what: "the lab's open loop: the same phases as Artillery, µs latencies, ~10x less CPU",
  loop: 'open',
  drives: 'requests',
  precision: "microseconds, HdrHistogram, timed from each request's due time (and from its actual send)",
  flags: {
    keepalive: OWN_FLAGS.keepalive,
    pipelining: OWN_FLAGS.pipelining,
    'generator-workers': OWN_FLAGS['generator-workers'],
    'tls-resume': OWN_FLAGS['tls-resume'],
  },
  supports: [...OWN_SUPPORTS, 'rates'],
  plan: (model, ctx) => ({ ...ownPlan(model, ctx), mode: 'open', phases: model.phases }),
  start: (plan, o) => startOwn(plan, o),
});
