'use strict';

const { defineKind } = require('./common/proxy');
const { haproxyConfig, CONTAINER, local, check, reload, BIN } = require('./common/haproxy');

// HAProxy at L4 (`mode tcp`): a client's connection passed whole to one replica.
module.exports = defineKind({
  name: 'haproxy-l4',
  role: 'balancer',
  layer: 4,
  what: 'HAProxy, TCP (L4)',
  label: 'HAProxy (L4)',
  node: 'haproxy',
  methods: ['round-robin', 'least_conn', 'hash'],
  runtimes: ['local', 'compose', 'swarm'],
  bin: BIN,
  confFile: 'haproxy.cfg',
  config: (ctx) => haproxyConfig(4, ctx),
  local,
  check,
  reload,
  container: CONTAINER,
});
