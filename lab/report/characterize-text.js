'use strict';

// `npm run characterize`'s account in the terminal: a row per level, the verdict, where the
// page is (the page itself: ./characterize-html.js).

const path = require('node:path');
const table = require('../terminal/table');

// The terminal's account: a row per level, the verdict, where the page is.
function textOf(out, verdict, dir) {
  const rows = out.levels.map((l) => ({
    c: l.concurrency,
    done: l.completed,
    tput: Math.round(l.throughput * 100) / 100,
    min: Math.round(l.latencyMs.min ?? 0),
    mean: Math.round(l.latencyMs.mean ?? 0),
    p95: Math.round(l.latencyMs.p95 ?? 0),
  }));
  const text = [
    table(rows, [
      ['c', 'concurrency'],
      ['done', 'completed'],
      ['tput', 'throughput/s'],
      ['min', 'min ms'],
      ['mean', 'mean ms'],
      ['p95', 'p95 ms'],
    ]),
    '',
    verdict.kind === 'sync'
      ? `verdict: synchronous, ${verdict.workers} workers, delay ${verdict.delayMs} ms ± ${verdict.delayUncertaintyMs} ms`
      : verdict.kind === 'async'
        ? `verdict: asynchronous, delay ${verdict.delayMs} ms ± ${verdict.delayUncertaintyMs} ms`
        : 'verdict: inconclusive',
    verdict.explanation,
    '',
    `Took ${out.seconds} s. Chart and table: ${path.join(dir, 'index.html')}`,
  ];
  return text.join('\n');
}

module.exports = { textOf };
