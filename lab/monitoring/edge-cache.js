'use strict';

const fs = require('node:fs');
const { nginxPaths } = require('../runtime/nginx-process');

// Each caching edge's requests and cache verdicts during a run, from its access log (one
// $upstream_cache_status per line, nginx/nginx-edge.conf.template): open-source nginx keeps
// no cache statistics itself. Offsets taken at the start make the counts the run's own.
const sizeOf = (file) => {
  try {
    return fs.statSync(file).size;
  } catch {
    return 0;
  }
};

function cacheOffsets(stateDir, edges) {
  return Object.fromEntries(edges.map((e) => [e, sizeOf(nginxPaths(stateDir, e).accessLog)]));
}

// Counts the lines of `text`: { requests, HIT, MISS, ... , hitRatio } (hitRatio: HIT over
// requests the cache decided on, i.e. every line but "-").
function countVerdicts(text) {
  const out = { requests: 0, verdicts: {} };
  for (const line of text.split('\n')) {
    const v = line.trim();
    if (!v) continue;
    out.requests += 1;
    out.verdicts[v] = (out.verdicts[v] || 0) + 1;
  }
  const decided = out.requests - (out.verdicts['-'] || 0);
  out.hitRatio = decided ? (out.verdicts.HIT || 0) / decided : null;
  return out;
}

function cacheCounts(stateDir, edges, offsets = {}) {
  const out = {};
  for (const e of edges) {
    const file = nginxPaths(stateDir, e).accessLog;
    const from = offsets[e] || 0;
    let text = '';
    try {
      const fd = fs.openSync(file, 'r');
      try {
        const len = Math.max(0, fs.fstatSync(fd).size - from);
        const buf = Buffer.alloc(len);
        fs.readSync(fd, buf, 0, len, from);
        text = buf.toString('utf8');
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      // no log: no requests
    }
    out[e] = countVerdicts(text);
  }
  return out;
}

module.exports = { cacheOffsets, cacheCounts, countVerdicts };
