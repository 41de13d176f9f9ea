'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../paths');
const { quotedPath } = require('./template');

// How nginx picks a replica, and the directive that says it (round-robin is nginx's default).
// `hash` is consistent hashing on the URI at L7 (one URI always goes to the same replica, and
// only a share of them move when a replica comes or goes), on the client's address at L4,
// where there is no URI.
const METHODS = Object.freeze({
  'round-robin': { 7: '', 4: '' },
  least_conn: { 7: 'least_conn;', 4: 'least_conn;' },
  hash: { 7: 'hash $request_uri consistent;', 4: 'hash $remote_addr consistent;' },
});

// One template per layer; the stream module's path is Debian's (libnginx-mod-stream).
const TEMPLATES = {
  7: path.join(ROOT, 'nginx', 'nginx.conf.template'),
  4: path.join(ROOT, 'nginx', 'nginx-l4.conf.template'),
  edge: path.join(ROOT, 'nginx', 'nginx-edge.conf.template'),
};
const STREAM_MODULE = '/usr/lib/nginx/modules/ngx_stream_module.so';
// The folders of nginx's temporary files, all inside the state folder (never its defaults
// under /var/lib/nginx).
const TEMP_PATHS = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'];

// Renders the nginx config of one nginx node (`layer`: 7 for HTTP, 4 for the stream module). `paths` are absolute paths (inside the run
// directory locally, inside the container for compose); `upstreams` are the replicas'
// host:port. In a container nginx stays in the foreground (`daemon: 'off'`). A swarm
// stack's replicas come and go, so there `resolver` names the DNS nginx re-asks (below).
// `edge` names a caching edge (lab/topology/graph.js): its own template, round-robin over the
// backends, whatever the entry balancer's method.
// `connections`: worker_connections, 8192 unless a run holds more (lab/commands/scenario/plan.js).
// `workerUser`: the user an edge's workers run as when the master is root: they write the
// cache inside the state folder, which may be closed to nginx's default `nobody`.
function renderNginxConfig({
  layer = 7,
  deployment,
  host,
  port,
  upstreams,
  paths,
  daemon = 'on',
  resolver = null,
  edge = null,
  workerUser = null,
  connections = 8192,
  tls = null,
}) {
  const b = deployment.balancer;
  if (edge) layer = 'edge';
  const directive = edge ? '' : METHODS[b.method][layer];
  const servers = [
    // The method's directive (none for round-robin, nginx's default).
    ...(directive ? [`        ${directive}`] : []),
    ...upstreams.map((u) => `        server ${u} max_fails=${b.maxFails} fail_timeout=${b.failTimeoutS}s;`),
  ].join('\n');
  // A swarm's tasks come and go. nginx 1.22 (Debian's) resolves an upstream block's names
  // once, at start; a variable in proxy_pass is resolved through `resolver` at request time
  // instead (cached for its `valid`), every address of the name in turn. What that costs:
  // no keep-alive to the tasks, round-robin only.
  const upstream = resolver
    ? `    resolver ${resolver} valid=2s ipv6=off;\n`
    : `\n    upstream service {\n        # ${b.method}; passive health: max_fails within fail_timeout takes a replica out.\n${servers}\n        keepalive ${b.keepalive};\n        keepalive_requests 100000;\n    }\n`;
  const proxyPass = resolver
    ? `            set $tasks ${upstreams[0]};\n            proxy_pass http://$tasks;`
    : '            proxy_pass http://service;';
  const values = {
    label: deployment.label,
    workerProcesses: 'auto',
    // `connections` per worker: each accept may land on either worker, so a run that holds
    // many connections (signaling) asks for all of them, times two (client and upstream).
    workerConnections: connections,
    rlimitNofile: Math.max(19000, connections + 1000),
    pidFile: quotedPath(paths.pidFile),
    errorLog: quotedPath(paths.errorLog),
    // (An L4 config has no http block, and no temporary files.)
    tempPaths: paths.tempDir
      ? TEMP_PATHS.map((t) => `    ${t}_temp_path ${quotedPath(path.join(paths.tempDir, t))};`).join('\n')
      : '',
    method: b.method,
    servers,
    upstream,
    proxyPass,
    keepalive: b.keepalive,
    // A swarm's name: every address of it in turn (0, nginx's "no limit", each peer once a
    // request), still within proxy_next_upstream_timeout. Two tries, as for a fixed list,
    // failed requests when a scale from 5 to 2 left three gone tasks in the 2 s of cached
    // addresses (or three new ones not yet listening): two of them in a row, no answer.
    tries: resolver ? 0 : b.tries,
    host,
    port,
    daemon,
    streamModule: quotedPath(STREAM_MODULE),
    edge,
    workerUser: workerUser
      ? `# Its workers write the cache inside the state folder, which is the lab user's.\nuser ${workerUser};\n`
      : '',
    accessLog: paths.accessLog && quotedPath(paths.accessLog),
    // The entry terminating TLS (--tls), and speaking HTTP/2 to clients (--http2): its replicas
    // stay plain HTTP/1.1 with kept-alive connections, as in production.
    listenTls: tls ? ` ssl${tls.http2 ? ' http2' : ''}` : '',
    tlsLines: tls ? tlsLines(tls) : '',
    cacheDir: paths.cacheDir && quotedPath(paths.cacheDir),
    cacheMaxSize: '256m',
  };
  const text = fs.readFileSync(TEMPLATES[layer], 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (m, key) => {
    if (!(key in values)) throw new Error(`nginx template: no value for {{${key}}}`);
    return String(values[key]);
  });
}

// The server's TLS: its certificate, TLS 1.2 and 1.3, a session cache and tickets, so that a
// client that resumes its session (as browsers and the lab's generators do by default) skips
// the full handshake.
function tlsLines(tls) {
  return [
    `ssl_certificate ${quotedPath(tls.cert)};`,
    `ssl_certificate_key ${quotedPath(tls.key)};`,
    'ssl_protocols TLSv1.2 TLSv1.3;',
    'ssl_session_cache shared:lab_tls:10m;',
    'ssl_session_timeout 10m;',
    'ssl_session_tickets on;',
  ]
    .map((l) => `\n        ${l}`)
    .join('');
}

module.exports = renderNginxConfig;
module.exports.METHODS = METHODS;
