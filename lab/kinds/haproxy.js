'use strict';

const { defineKind } = require('./common/proxy');
const { haproxyConfig, CONTAINER, local, check, reload, BIN } = require('./common/haproxy');

// HAProxy at L7 (`mode http`): the reference balancer of published proxy comparisons.
module.exports = defineKind({
  name: 'haproxy',
  role: 'balancer',
  layer: 7,
  what: 'HAProxy, HTTP (L7)',
  label: 'HAProxy',
  methods: ['round-robin', 'least_conn', 'hash'],
  runtimes: ['local', 'compose', 'swarm'],
  bin: BIN,
  // Its answers name the replica that served them (X-Lab-Upstream).
  // It terminates TLS for its clients (--tls), HTTP/2 too (--http2).
  tls: true,
  namesUpstream: true,
  confFile: 'haproxy.cfg',
  config: (ctx) => haproxyConfig(7, ctx),
  local,
  check,
  reload,
  container: CONTAINER,
});
