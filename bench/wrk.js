'use strict';

const { execFile } = require('node:child_process');

// One wrk measurement (closed loop, one thread): requests per second, p99 in ms and the
// count of non-2xx answers. wrk (Debian package) because a Node generator tops out near
// 6,000 req/s here and would measure itself.
function wrk(url, { connections, seconds }) {
  return new Promise((resolve, reject) => {
    const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--latency', url];
    execFile('wrk', args, { timeout: (seconds + 30) * 1000 }, (err, out) => {
      if (err) return reject(err);
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
      const p99 = /\s99%\s+([\d.]+)(us|ms|s)/.exec(out);
      const toMs = (v, u) => Number(v) * { us: 0.001, ms: 1, s: 1000 }[u];
      const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
      resolve({
        rps: rps ? Number(rps[1]) : 0,
        p99Ms: p99 ? Math.round(toMs(p99[1], p99[2]) * 100) / 100 : null,
        non2xx: non2xx ? Number(non2xx[1]) : 0,
      });
    });
  });
}

// Several URLs at once (one wrk each), `connections` split evenly between them: the total
// throughput, the worst p99 of the parts, and the non-2xx answers.
async function wrkSplit(urls, { connections, seconds }) {
  const share = urls.map((_, i) => Math.floor(connections / urls.length) + (i < connections % urls.length ? 1 : 0));
  const parts = await Promise.all(urls.map((u, i) => wrk(u, { connections: share[i], seconds })));
  return {
    rps: Math.round(parts.reduce((a, p) => a + p.rps, 0)),
    p99Ms: Math.max(...parts.map((p) => p.p99Ms)),
    non2xx: parts.reduce((a, p) => a + p.non2xx, 0),
  };
}

module.exports = wrk;
module.exports.wrkSplit = wrkSplit;
