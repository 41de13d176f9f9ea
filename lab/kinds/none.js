'use strict';

const { defineKind } = require('./common/proxy');

// No balancer (seed 001's NodePort line): clients go straight to the replicas; the lab's
// generators spread their requests over them, round-robin. No node in the graph.
module.exports = defineKind({
  name: 'none',
  role: 'balancer',
  layer: null,
  what: 'no balancer (the generator spreads over the replicas)',
  label: 'no balancer',
  node: null,
  runtimes: ['local'],
});
