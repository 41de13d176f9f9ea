'use strict';

const renderNginxConfig = require('../../../../lab/kinds/common/nginx-config');
const { resolveDeployment } = require('../../../../lab/topology/deployments');

describe('nginx config', () => {
  test('one upstream server per replica, keepalive and bounded retries, paths from the run directory', () => {
    const text = renderNginxConfig({
      deployment: resolveDeployment('replicated'),
      host: '127.0.0.1',
      port: 8080,
      upstreams: ['127.0.0.1:8090', '127.0.0.1:8091', '127.0.0.1:8092'],
      paths: { pidFile: '/run/x/nginx.pid', errorLog: '/run/x/error.log', tempDir: '/run/x/temp' },
    });
    expect(text.match(/server 127\.0\.0\.1:809\d max_fails=3 fail_timeout=5s;/g)).toHaveLength(3);
    expect(text).toMatch(/keepalive 64;/);
    // Plain HTTP keeps its upstream connection (an empty Connection); WebSockets upgrade.
    expect(text).toMatch(/map \$http_upgrade \$connection_upgrade \{\s+default upgrade;\s+'' '';\s+\}/);
    expect(text).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(text).toMatch(/proxy_set_header Connection \$connection_upgrade;/);
    expect(text).toMatch(/proxy_next_upstream_tries 2;/);
    expect(text).toMatch(/pid "\/run\/x\/nginx\.pid";/);
    expect(text).toMatch(/access_log off;/);
    expect(text).not.toMatch(/\{\{/);
  });

  // A swarm's tasks by name: a scale from 5 to 2 left three gone addresses in the resolver's
  // cache; with two tries a request met two of them and failed. Every address once, in 10 s.
  test("a swarm's name resolved at request time: each of its addresses tried once, within 10 s", () => {
    const text = renderNginxConfig({
      deployment: resolveDeployment('multi-replicated'),
      host: '0.0.0.0',
      port: 8080,
      upstreams: ['tasks.service:3000'],
      resolver: '127.0.0.11',
      paths: { pidFile: '/tmp/nginx.pid', errorLog: 'stderr' },
    });
    expect(text).toMatch(/resolver 127\.0\.0\.11 valid=2s ipv6=off;/);
    expect(text).toMatch(/set \$tasks tasks\.service:3000;\s+proxy_pass http:\/\/\$tasks;/);
    expect(text).toMatch(/proxy_next_upstream_tries 0;\s+proxy_next_upstream_timeout 10s;/);
    expect(text).not.toMatch(/upstream service/);
  });
});

// A state folder or checkout whose path has a space (or a quote) broke every deployment:
// `invalid number of arguments in "pid" directive`. Every path is quoted, escaped within.
test('every path is quoted: a space or a quote in the state folder stays one argument; a $ is refused', () => {
  const text = renderNginxConfig({
    deployment: resolveDeployment('cdn'),
    edge: 'edge-1',
    host: '127.0.0.1',
    port: 8080,
    upstreams: ['127.0.0.1:8090'],
    paths: {
      pidFile: '/tmp/my state/nginx.pid',
      errorLog: '/tmp/my state/e.log',
      tempDir: '/tmp/my state/t',
      accessLog: '/tmp/my "lab"/a.log',
      cacheDir: '/tmp/my state/cache',
    },
  });
  expect(text).toMatch(/^pid "\/tmp\/my state\/nginx\.pid";$/m);
  expect(text).toMatch(/^error_log "\/tmp\/my state\/e\.log" warn;$/m);
  expect(text).toMatch(/^ {4}client_body_temp_path "\/tmp\/my state\/t\/client_body";$/m);
  expect(text).toContain('access_log "/tmp/my \\"lab\\"/a.log" edge;');
  expect(text).toMatch(/proxy_cache_path "\/tmp\/my state\/cache" levels/);
  const { codeOf } = require('../../../helper');
  expect(
    codeOf(() =>
      renderNginxConfig({
        deployment: resolveDeployment('single'),
        host: '127.0.0.1',
        port: 8080,
        upstreams: ['127.0.0.1:8090'],
        paths: { pidFile: '/tmp/$HOME/nginx.pid', errorLog: '/e', tempDir: '/t' },
      }),
    ),
  ).toBe('LAB_ERR_PATH');
});

describe('balancing methods', () => {
  const render = (method) =>
    renderNginxConfig({
      deployment: resolveDeployment('replicated', { method }),
      host: '127.0.0.1',
      port: 8080,
      upstreams: ['127.0.0.1:8090', '127.0.0.1:8091'],
      paths: { pidFile: '/p', errorLog: '/e', tempDir: '/t' },
    });
  test.each([
    ['round-robin', null],
    ['least_conn', /^\s+least_conn;$/m],
    ['hash', /^\s+hash \$request_uri consistent;$/m],
  ])('%s renders its directive inside the upstream', (method, directive) => {
    const text = render(method);
    const upstream = /upstream service \{[^}]*\}/.exec(text)[0];
    if (directive) expect(upstream).toMatch(directive);
    else expect(upstream).not.toMatch(/least_conn|hash /);
  });
  test('the label names a method other than the default; an unknown one is refused', () => {
    expect(resolveDeployment('replicated', { method: 'hash' }).label).toBe('replicated (hash)');
    expect(resolveDeployment('replicated').label).toBe('replicated');
    expect(() => resolveDeployment('replicated', { method: 'random' })).toThrow(
      expect.objectContaining({ code: 'LAB_ERR_UNKNOWN_NAME' }),
    );
  });
});

describe('nginx at L4', () => {
  test('a stream block with the module loaded, no HTTP; hash on the client address', () => {
    const render = (method) =>
      renderNginxConfig({
        layer: 4,
        deployment: resolveDeployment('replicated', { balancer: 'nginx-l4', method }),
        host: '127.0.0.1',
        port: 8080,
        upstreams: ['127.0.0.1:8090', '127.0.0.1:8091'],
        paths: { pidFile: '/p', errorLog: '/e', tempDir: '/t' },
      });
    const text = render();
    expect(text).toMatch(/^load_module "\/usr\/lib\/nginx\/modules\/ngx_stream_module\.so";$/m);
    expect(text).toMatch(/^stream \{/m);
    expect(text).not.toMatch(/^http \{|proxy_http_version|keepalive /m);
    expect(text.match(/server 127\.0\.0\.1:809\d max_fails=3 fail_timeout=5s;/g)).toHaveLength(2);
    expect(render('hash')).toMatch(/^\s+hash \$remote_addr consistent;$/m);
    expect(resolveDeployment('replicated', { balancer: 'nginx-l4' }).label).toBe('replicated (nginx-l4)');
  });
});

test('--tls: the listen is ssl (http2 with --http2), the certificate quoted, sessions cached and resumable', () => {
  const render = (http2) =>
    renderNginxConfig({
      deployment: resolveDeployment('replicated'),
      host: '127.0.0.1',
      port: 8443,
      upstreams: ['127.0.0.1:8090'],
      paths: { pidFile: '/p', errorLog: '/e', tempDir: '/t' },
      tls: { cert: '/s/tls/server.crt', key: '/s/tls/server.key', http2 },
    });
  expect(render(false)).toMatch(/^ {8}listen 127\.0\.0\.1:8443 ssl backlog=4096;$/m);
  expect(render(true)).toMatch(/^ {8}listen 127\.0\.0\.1:8443 ssl http2 backlog=4096;$/m);
  const text = render(false);
  expect(text).toContain('ssl_certificate "/s/tls/server.crt";');
  expect(text).toContain('ssl_certificate_key "/s/tls/server.key";');
  expect(text).toMatch(/ssl_session_cache shared:lab_tls:10m;/);
  expect(text).toMatch(/ssl_session_tickets on;/);
  // The upstreams stay plain HTTP/1.1, kept alive.
  expect(text).toMatch(/proxy_pass http:\/\/service;/);
});
