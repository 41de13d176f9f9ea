'use strict';

const { fillTemplate, quotedPath } = require('./template');
const { template, MAX_CONNECTIONS } = require('./proxy');

// HAProxy at L7 (`mode http`) and L4 (`mode tcp`): one template (haproxy/), the method as
// HAProxy's `balance`. Consistent hashing is `hash-type consistent` on the URI at L7, on the
// client's address at L4, as nginx's `hash ... consistent`.
const BALANCE = {
  'round-robin': () => ['balance roundrobin'],
  least_conn: () => ['balance leastconn'],
  hash: (layer) => [layer === 7 ? 'balance uri' : 'balance source', 'hash-type consistent'],
};

// Passive health as nginx's (max_fails within fail_timeout takes a replica out): a replica
// whose connections fail is marked down after `maxFails` errors, and TCP checks every second
// bring it back once it accepts again.
function serverLines(ctx) {
  const b = ctx.deployment.balancer;
  const health = `check inter 1s fall ${b.maxFails} rise 1 observe layer4 error-limit ${b.maxFails} on-error mark-down`;
  if (ctx.tasks) {
    // A swarm's tasks come and go: slots filled from Docker's DNS, re-resolved every 2 s.
    return [`    server-template replica- 1-32 ${ctx.tasks} ${health} resolvers docker init-addr none`];
  }
  return ctx.upstreams.map((u, i) => `    server ${ctx.node.upstreams[i]} ${u} ${health}`);
}

function haproxyConfig(layer, ctx) {
  const b = ctx.deployment.balancer;
  return fillTemplate(template('haproxy', 'haproxy.cfg.template'), {
    node: ctx.node.name,
    label: ctx.deployment.label,
    layerText: layer === 7 ? 'HTTP, L7' : 'TCP, L4',
    maxconn: ctx.container ? ctx.connections : Math.min(ctx.connections, MAX_CONNECTIONS),
    pidfile: ctx.container ? '' : `    pidfile ${quotedPath(ctx.paths.pidFile)}`,
    mode: layer === 7 ? 'http' : 'tcp',
    tries: b.tries,
    retries: b.tries - 1,
    // At L7 a request that failed before any answer is sent again (GETs are idempotent here).
    retryOn: layer === 7 ? '    retry-on conn-failure empty-response' : '',
    resolvers: ctx.tasks ? 'resolvers docker\n    nameserver dns 127.0.0.11:53\n    hold valid 2s\n' : '',
    bind: `${ctx.listen.host}:${ctx.listen.port}`,
    // --tls: its certificate and key in one file (HAProxy's form), ALPN h2 with --http2. HAProxy
    // keeps a session cache and issues tickets by default.
    bindTls: ctx.tls ? ` ssl crt ${quotedPath(ctx.tls.pem)} alpn ${ctx.tls.http2 ? 'h2,http/1.1' : 'http/1.1'}` : '',
    method: b.method,
    balance: BALANCE[b.method](layer)
      .map((l) => `    ${l}`)
      .join('\n'),
    servers: serverLines(ctx).join('\n'),
    // Which replica answered, for any service (HAProxy 2.6 has no fetch of the server's time).
    upstreamHeader: layer === 7 ? '    http-response set-header X-Lab-Upstream %[srv_name]' : '',
  });
}

const CONTAINER = Object.freeze({
  image: 'haproxy:2.6',
  imageEnv: 'LAB_HAPROXY_IMAGE',
  conf: '/usr/local/etc/haproxy/lab.cfg',
  command: (conf) => ['haproxy', '-db', '-f', conf],
});

// Locally: in the foreground under pm2 (-db), its config checked first (-c), as a master and
// its worker (-W): SIGUSR2 to the master reloads the config into a new worker, the old one
// finishing its connections (replicas that came or went).
const local = (ctx) => ({ command: ctx.bin, args: ['-W', '-db', '-f', ctx.paths.confFile] });
const reload = Object.freeze({ signal: 'SIGUSR2' });
const check = (ctx) => ({ command: ctx.bin, args: ['-c', '-q', '-f', ctx.paths.confFile] });

module.exports = {
  haproxyConfig,
  CONTAINER,
  local,
  check,
  reload,
  BIN: { name: 'haproxy', package: 'haproxy', path: '/usr/sbin/haproxy' },
};
