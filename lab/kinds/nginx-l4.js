'use strict';

const { defineKind } = require('./common/proxy');
const { nginxConfig, STREAM_PROGRAMS, NGINX_KIND } = require('./common/nginx');

// nginx at L4 (TCP, the stream module): one client connection to one replica, nothing
// parsed (nginx/nginx-l4.conf.template). The images' nginx has no stream module: local only.
module.exports = defineKind({
  name: 'nginx-l4',
  role: 'balancer',
  layer: 4,
  what: 'nginx, TCP (L4, stream module)',
  label: 'nginx (L4)',
  node: 'nginx',
  methods: ['round-robin', 'least_conn', 'hash'],
  runtimes: ['local'],
  ...NGINX_KIND,
  programs: STREAM_PROGRAMS,
  config: (ctx) => nginxConfig(4, ctx),
});
