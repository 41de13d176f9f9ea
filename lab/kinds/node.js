'use strict';

const path = require('node:path');
const { defineKind, INNER } = require('./common/proxy');
const { ROOT } = require('../paths');

// The lab's own small balancer (balancer/, node:http, round-robin, keep-alive): an
// experiment subject beside the real proxies, seed 004's self-written balancer.
const upstreamsFile = (ctx) => path.join(ctx.paths.prefix, 'upstreams');

module.exports = defineKind({
  name: 'node',
  role: 'balancer',
  layer: 7,
  what: "the lab's own balancer (node:http, round-robin)",
  label: 'node balancer',
  node: 'balancer',
  // Its answers name the replica that served them (X-Lab-Upstream).
  // It terminates TLS for its clients (--tls), HTTP/2 too (--http2).
  tls: true,
  namesUpstream: true,
  runtimes: ['local', 'compose', 'swarm'],
  // A new list of replicas: written to its file, then SIGHUP.
  reload: { signal: 'SIGHUP', file: (ctx) => [upstreamsFile(ctx), `${ctx.upstreams.join('\n')}\n`] },
  local: (ctx) => ({
    command: process.execPath,
    args: [path.join(ROOT, 'balancer', 'index.js')],
    env: {
      HOST: ctx.listen.host,
      PORT: String(ctx.listen.port),
      UPSTREAMS: ctx.upstreams.join(','),
      // Read again on SIGHUP, when replicas come and go (balancer/index.js).
      UPSTREAMS_FILE: upstreamsFile(ctx),
      ...(ctx.tls ? { TLS_CERT: ctx.tls.cert, TLS_KEY: ctx.tls.key, HTTP2: ctx.tls.http2 ? '1' : '0' } : {}),
    },
  }),
  // In containers it runs from the service's image (which holds balancer/).
  compose: (ctx) => ({
    image: ctx.images.service,
    build: ctx.build('service/Dockerfile'),
    init: true,
    command: ['node', 'balancer/index.js'],
    environment: {
      HOST: '0.0.0.0',
      PORT: String(INNER.proxy),
      UPSTREAMS: ctx.node.upstreams.map((u) => `${u}:${INNER.service}`).join(','),
    },
    healthcheck: { disable: true },
  }),
  // On a swarm it finds the tasks by DNS, looked up again every second (RESOLVE_MS).
  stack: (ctx) => ({
    image: ctx.images.service,
    command: ['node', 'balancer/index.js'],
    environment: {
      HOST: '0.0.0.0',
      PORT: String(INNER.proxy),
      UPSTREAMS: ctx.tasks,
      RESOLVE_MS: '1000',
    },
    healthcheck: { disable: true },
  }),
});
