'use strict';

const { NO_ANSWER } = require('./exit-code');

// A run that sent requests and had not one answered (every connection refused, every request
// timed out) measured nothing of the service: a failed run, never a green one (it once exited
// 0, its JUnit file with no test at all). So is a run whose every answer was a gateway error
// (502, 504: the entry reached no replica; a service listening on 127.0.0.1 in a container
// once ran "completed" that way). Its status says why.
const GATEWAY = ['502', '504'];
function noAnswer(summary) {
  if (summary.status !== 'completed') return;
  if (!(summary.requestsSent > 0)) {
    noRequest(summary);
    return;
  }
  const codes = Object.entries(summary.codes || {});
  const fromService = codes.filter(([c]) => !GATEWAY.includes(c)).reduce((a, [, n]) => a + n, 0);
  if (summary.requestsCompleted > 0 && fromService > 0) return;
  // (WebSocket messages, a ws flow's, complete with no HTTP status: written, or answered.)
  if (summary.requestsCompleted > 0 && !codes.length) return;
  const gateway = codes.filter(([c]) => GATEWAY.includes(c));
  const why = gateway.length
    ? `${gateway.map(([c, n]) => `HTTP ${c} ${n}`).join(', ')} from the entry, which reached no replica`
    : Object.entries(summary.errors || {})
        .sort((a, b) => b[1] - a[1])
        .slice(0, 1)
        .map(([e, n]) => `${e} ${n}`)[0];
  summary.status = `${NO_ANSWER}${why ? `: ${why}` : ''})`;
}

// No HTTP request of the lab's counting: a browser's run (the Playwright engine, its pages
// its answers), or virtual users that sent nothing the lab counts. Failed when no page
// loaded, or when virtual users started and not one completed (the browser never reached
// the target once said "completed").
function noRequest(summary) {
  const b = summary.browser;
  const errors = Object.entries(summary.errors || {})
    .sort((x, y) => y[1] - x[1])
    .slice(0, 3)
    .map(([e, n]) => `${e} ${n}`)
    .join(', ');
  const pagesOk = Object.entries(b?.codes || {}).some(([c, n]) => n > 0 && !GATEWAY.includes(c));
  if (pagesOk) return;
  if (b || (summary.scenariosLaunched > 0 && !summary.scenariosCompleted)) {
    const codes = Object.entries(b?.codes || {}).map(([c, n]) => `HTTP ${c} ${n}`);
    const why = [...codes, ...(errors ? [errors] : [])].join('; ');
    summary.status = `${NO_ANSWER}: ${b ? 'no page loaded' : 'no virtual user completed'}${why ? `: ${why}` : ''})`;
  }
}

module.exports = { noAnswer, GATEWAY };
