'use strict';

const path = require('node:path');
const { defineKind, template } = require('./common/proxy');
const { fillTemplate, quotedPath } = require('./common/template');
const { labError } = require('../../common/errors');

// Caddy's reverse_proxy at L7 (caddy/Caddyfile.template): the modern default. Its hash is
// uri_hash (rendezvous hashing of the URI: a replica's going away moves only its URIs).
const POLICY = { 'round-robin': 'round_robin', least_conn: 'least_conn', hash: 'uri_hash' };

function config(ctx) {
  const b = ctx.deployment.balancer;
  const storage = ctx.container ? '' : `\tstorage file_system ${quotedPath(path.join(ctx.paths.prefix, 'data'))}\n`;
  return fillTemplate(template('caddy', 'Caddyfile.template'), {
    node: ctx.node.name,
    admin: adminSocket(ctx) ? quotedPath(`unix/${adminSocket(ctx)}`) : 'off',
    label: ctx.deployment.label,
    storage,
    port: ctx.listen.port,
    host: ctx.listen.host,
    // --tls: its certificate (never one of its own: automatic HTTPS stays off), HTTP/2 only
    // with --http2 (Caddy speaks it by default over TLS).
    scheme: ctx.tls ? 'https' : 'http',
    tls: ctx.tls ? `\ttls ${quotedPath(ctx.tls.cert)} ${quotedPath(ctx.tls.key)}\n` : '',
    protocols: ctx.tls ? `\tservers {\n\t\tprotocols ${ctx.tls.http2 ? 'h1 h2' : 'h1'}\n\t}\n` : '',
    // A swarm's tasks: looked up in Docker's DNS every second (Caddy's dynamic upstreams).
    upstreams: ctx.tasks ? '' : ctx.upstreams.join(' '),
    dynamic: ctx.tasks
      ? `\t\tdynamic a ${ctx.tasks.split(':')[0]} ${ctx.tasks.split(':')[1]} {\n\t\t\trefresh 1s\n\t\t}\n`
      : '',
    method: b.method,
    policy: POLICY[b.method],
    failTimeoutS: b.failTimeoutS,
    maxFails: b.maxFails,
    keepalive: b.keepalive,
  });
}

// Its admin endpoint locally: a Unix socket in its prefix (only the lab's user reaches it),
// which `caddy reload` tells the new config to. A socket's path has at most 107 bytes: a
// state folder too deep for one leaves Caddy without it, and its reloads say why.
const SOCKET_MAX = 107;
function adminSocket(ctx) {
  if (ctx.container || !ctx.paths) return null;
  const file = path.join(ctx.paths.prefix, 'admin.sock');
  return Buffer.byteLength(file) <= SOCKET_MAX ? file : null;
}

function reloadCommand(ctx) {
  const socket = adminSocket(ctx);
  if (!socket) {
    throw labError(
      'LAB_ERR_PROXY_CONFIG',
      'caddy',
      `its admin socket would be ${path.join(ctx.paths.prefix, 'admin.sock')}, longer than a socket's ${SOCKET_MAX} bytes: use a shorter --state-dir to change its replicas while it runs`,
    );
  }
  return {
    command: ctx.bin,
    args: ['reload', '--config', ctx.paths.confFile, '--adapter', 'caddyfile', '--address', `unix/${socket}`],
  };
}

module.exports = defineKind({
  name: 'caddy',
  role: 'balancer',
  layer: 7,
  what: 'Caddy, HTTP (L7, reverse_proxy)',
  label: 'Caddy',
  methods: ['round-robin', 'least_conn', 'hash'],
  runtimes: ['local', 'compose', 'swarm'],
  bin: { name: 'caddy', package: 'caddy', path: '/usr/bin/caddy' },
  // Its answers name the replica that served them (X-Lab-Upstream).
  // It terminates TLS for its clients (--tls), HTTP/2 too (--http2).
  tls: true,
  namesUpstream: true,
  confFile: 'Caddyfile',
  config,
  // In the foreground under pm2; its data and config homes inside its prefix.
  local: (ctx) => ({
    command: ctx.bin,
    args: ['run', '--config', ctx.paths.confFile, '--adapter', 'caddyfile', '--pidfile', ctx.paths.pidFile],
    env: { XDG_DATA_HOME: path.join(ctx.paths.prefix, 'data'), XDG_CONFIG_HOME: path.join(ctx.paths.prefix, 'config') },
  }),
  check: (ctx) => ({ command: ctx.bin, args: ['validate', '--config', ctx.paths.confFile, '--adapter', 'caddyfile'] }),
  reload: { command: reloadCommand },
  container: {
    image: 'caddy:2.6',
    imageEnv: 'LAB_CADDY_IMAGE',
    conf: '/etc/caddy/lab.Caddyfile',
    command: (conf) => ['caddy', 'run', '--config', conf, '--adapter', 'caddyfile'],
  },
});
