'use strict';

const fs = require('node:fs');
const path = require('node:path');

// How often pm2 restarted each app over a window, from its daemon's own log in the lab's
// pm2 home ("App [replica-1:0] exited with code [3] via signal [SIGINT]", then "starting"
// again): a mark (the log's size) at the window's start, the exits since. Read from the file,
// never by connecting to the daemon, so measuring cannot disturb what it measures. (pm2 names
// a signal in every exit line, SIGINT when the process exited on its own: the code is what
// the process said. A process a signal killed has no code, and pm2 writes 0 for it: that
// exit is counted by its signal, as a kill, not as "exit code 0": an OOM-killed Redis was
// once said to have exited with code 0.)
const LOG = 'pm2.log';
const EXIT = /App \[([^\]:]+):\d+\] exited with code \[([^\]]*)\] via signal \[([^\]]*)\]/;
const STOPPING = /PM2 log: Stopping app:(\S+) id:\d+/;

function mark(pm2Home) {
  try {
    return fs.statSync(path.join(pm2Home, LOG)).size;
  } catch {
    return 0;
  }
}

// { [app]: { restarts, exitCodes: { [code]: n }, kills?: { [signal]: n } } } for the apps that
// exited after `from`.
// (Only the appended part is read, at most `maxBytes` of it: a crash loop of hours writes a
// few lines a second.)
function restartsSince(pm2Home, from = 0, { maxBytes = 8 << 20 } = {}) {
  let text;
  try {
    const fd = fs.openSync(path.join(pm2Home, LOG), 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const start = size < from ? 0 : from; // rotated meanwhile: read it all
      const length = Math.min(size - start, maxBytes);
      const buf = Buffer.alloc(Math.max(0, length));
      fs.readSync(fd, buf, 0, buf.length, start);
      text = buf.toString('utf8');
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return {};
  }
  const out = {};
  // Apps the lab stopped on purpose (a rollout's old replica, a scale down, the autoscaler's,
  // `down`): pm2 says "Stopping app:NAME" before their exit, which is no crash. (A rollout's
  // replaced replicas were once reported as "exited and was restarted ... a service that
  // crashes under load".)
  const stopping = new Set();
  for (const line of text.split('\n')) {
    const stop = STOPPING.exec(line);
    if (stop) {
      stopping.add(stop[1]);
      continue;
    }
    const m = EXIT.exec(line);
    if (!m) continue;
    if (stopping.delete(m[1])) continue;
    const a = (out[m[1]] ??= { restarts: 0, exitCodes: {} });
    a.restarts++;
    if (m[2] === '0' && m[3] && m[3] !== 'SIGINT') {
      a.kills ??= {};
      a.kills[m[3]] = (a.kills[m[3]] || 0) + 1;
    } else a.exitCodes[m[2]] = (a.exitCodes[m[2]] || 0) + 1;
  }
  return out;
}

// Restarts in words: "replica-2 restarted (exit code 1)", "replica-1 restarted 2 times (killed by
// SIGKILL)". restarts: [{ node, restarts, exitCodes, kills? }] (restartsSince's, by node).
// (A worker ended inside a replica, r.workers, is said as such: its primary forked another,
// and pm2 saw nothing.)
function restartText(restarts) {
  return restarts
    .map((r) => {
      const why = [
        ...Object.keys(r.exitCodes || {}).map((c) => `exit code ${c}`),
        ...Object.keys(r.kills || {}).map((s) => `killed by ${s}`),
      ].join(', ');
      const own =
        r.restarts > 0
          ? `${r.node} restarted${r.restarts > 1 ? ` ${r.restarts} times` : ''}${why ? ` (${why})` : ''}`
          : null;
      const workers = r.workers ? `${r.workers} worker(s) of ${r.node} ended and were replaced` : null;
      return [own, workers].filter(Boolean).join(', ');
    })
    .join(', ');
}

module.exports = { mark, restartsSince, restartText };
