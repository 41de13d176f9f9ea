'use strict';

const renderNginxConfig = require('../../lab/nginx-config');
const { resolveDeployment } = require('../../lab/deployments');

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
    expect(text).toMatch(/proxy_set_header Connection "";/);
    expect(text).toMatch(/proxy_next_upstream_tries 2;/);
    expect(text).toMatch(/pid \/run\/x\/nginx\.pid;/);
    expect(text).toMatch(/access_log off;/);
    expect(text).not.toMatch(/\{\{/);
  });
});
