'use strict';

const renderNginxConfig = require('./nginx-config');
const { NGINX_HOST } = require('./nginx-process');

// The three nginx kinds (L7, L4, the caching edge) share one renderer and the lab's own
// way of running nginx (./nginx-process.js: a master daemonized in its prefix,
// proven by its pid file). Here: a kind's context (lab/kinds/index.js) as nginx's values.
const CONTAINER = Object.freeze({
  image: 'nginx:1.27.3-bookworm',
  imageEnv: 'LAB_NGINX_IMAGE',
  conf: '/etc/nginx/lab.conf',
  command: (conf) => ['nginx', '-c', conf],
  paths: Object.freeze({
    pidFile: '/tmp/nginx.pid',
    errorLog: 'stderr',
    tempDir: '/tmp',
    accessLog: '/tmp/access.log',
    cacheDir: '/tmp/cache',
  }),
});

// The Debian packages a local nginx kind needs, and where its program is (the cluster's image
// copies it): declared once here, read by scripts/setup.sh and lab/cluster/lab-image.js.
const PROGRAMS = Object.freeze({ apt: ['nginx'], bins: ['/usr/sbin/nginx'] });
// L4 balances with the stream module, packaged apart.
const STREAM_PROGRAMS = Object.freeze({ apt: ['nginx', 'libnginx-mod-stream'], bins: ['/usr/sbin/nginx'] });

function nginxConfig(layer, ctx) {
  return renderNginxConfig({
    layer,
    deployment: ctx.deployment,
    host: ctx.listen.host,
    port: ctx.listen.port,
    // On a swarm nginx 1.22 re-resolves the tasks' name through Docker's DNS at request time.
    upstreams: ctx.tasks ? [ctx.tasks] : ctx.upstreams,
    resolver: ctx.tasks ? '127.0.0.11' : null,
    paths: ctx.container ? CONTAINER.paths : ctx.paths,
    daemon: ctx.container ? 'off' : 'on',
    edge: layer === 'edge' ? ctx.node.name : null,
    workerUser: layer === 'edge' ? ctx.workerUser : null,
    connections: ctx.connections,
    tls: ctx.tls ?? null,
  });
}

// What every nginx kind is besides its layer: run by the lab's own nginx on this host, in
// the nginx image in containers, its container config named as compose/nginx/ names them
// (the entry's nginx.conf, an edge's nginx-<edge>.conf).
const NGINX_KIND = Object.freeze({
  nginx: true,
  host: NGINX_HOST,
  container: CONTAINER,
  confName: (node) => (node === 'nginx' ? 'nginx.conf' : `nginx-${node}.conf`),
});

module.exports = { nginxConfig, CONTAINER, PROGRAMS, STREAM_PROGRAMS, NGINX_KIND };
