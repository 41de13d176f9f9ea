'use strict';

const fs = require('node:fs');
const path = require('node:path');

const TEMPLATE = path.join(__dirname, '..', 'nginx', 'nginx.conf.template');

// Renders the nginx config for a deployment. `paths` are absolute paths inside the run
// directory; `upstreams` are the replicas' host:port.
function renderNginxConfig({ deployment, host, port, upstreams, paths }) {
  const b = deployment.balancer;
  const servers = upstreams
    .map((u) => `        server ${u} max_fails=${b.maxFails} fail_timeout=${b.failTimeoutS}s;`)
    .join('\n');
  const values = {
    label: deployment.label,
    workerProcesses: 'auto',
    workerConnections: 8192,
    rlimitNofile: 19000,
    pidFile: paths.pidFile,
    errorLog: paths.errorLog,
    tempDir: paths.tempDir,
    method: b.method,
    servers,
    keepalive: b.keepalive,
    tries: b.tries,
    host,
    port,
  };
  const text = fs.readFileSync(TEMPLATE, 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (m, key) => {
    if (!(key in values)) throw new Error(`nginx template: no value for {{${key}}}`);
    return String(values[key]);
  });
}

module.exports = renderNginxConfig;
