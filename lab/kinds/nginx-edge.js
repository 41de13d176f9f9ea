'use strict';

const fs = require('node:fs');
const { defineKind } = require('./common/proxy');
const { nginxConfig, PROGRAMS, NGINX_KIND } = require('./common/nginx');

// A caching edge of nginx (proxy_cache, nginx/nginx-edge.conf.template): answers carry
// X-Edge and X-Cache-Status. Open-source nginx keeps no cache statistics, so the edge logs
// one $upstream_cache_status a line, and the lab counts them.
const sizeOf = (file) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

function readFrom(file, from) {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const len = Math.max(0, fs.fstatSync(fd).size - from);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, from);
      return buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return ''; // no log: no requests
  }
}

// The lines of a log: { requests, verdicts: { HIT: n, MISS: n, ... } }.
function countVerdicts(text) {
  const out = { requests: 0, verdicts: {} };
  for (const line of text.split('\n')) {
    const v = line.trim();
    if (!v) continue;
    out.requests += 1;
    out.verdicts[v] = (out.verdicts[v] || 0) + 1;
  }
  return out;
}

module.exports = defineKind({
  name: 'nginx-edge',
  flag: 'nginx',
  role: 'edge',
  layer: 7,
  what: 'nginx with proxy_cache',
  label: 'nginx cache',
  runtimes: ['local', 'compose'],
  ...NGINX_KIND,
  programs: PROGRAMS,
  config: (ctx) => nginxConfig('edge', ctx),
  // The cache's counts over a window: a mark at its start, the counts since (lab/monitoring).
  cache: {
    mark: (paths) => sizeOf(paths.accessLog),
    since: (paths, mark) => countVerdicts(readFrom(paths.accessLog, mark || 0)),
  },
  countVerdicts,
});
