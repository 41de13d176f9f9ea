'use strict';

const { defineKind } = require('./common/proxy');
const { nginxConfig, PROGRAMS, NGINX_KIND } = require('./common/nginx');

// nginx at L7 (HTTP): the course's balancer and the lab's default. Keep-alive to the
// replicas, bounded retries of a failed request on the next one (nginx/nginx.conf.template).
module.exports = defineKind({
  name: 'nginx',
  role: 'balancer',
  layer: 7,
  what: 'nginx, HTTP (L7)',
  label: 'nginx',
  methods: ['round-robin', 'least_conn', 'hash'],
  runtimes: ['local', 'compose', 'swarm'],
  ...NGINX_KIND,
  programs: PROGRAMS,
  // Its answers name the replica that served them (X-Lab-Upstream).
  // It terminates TLS for its clients (--tls), HTTP/2 too (--http2).
  tls: true,
  namesUpstream: true,
  config: (ctx) => nginxConfig(7, ctx),
});
