'use strict';

// Knows nothing of the lab, nor of its tests: bench/choose.js's own service. GET /search?q=..
// filters and ranks a catalog of 2,000 items built at start (string matching, a sort and a
// JSON body: about a millisecond of CPU a request); anything else answers ok.
const http = require('node:http');

const WORDS = ['red', 'blue', 'oak', 'steel', 'lamp', 'chair', 'desk', 'shelf', 'rug', 'vase', 'clock', 'bowl'];
const items = Array.from({ length: 2000 }, (_, i) => ({
  id: i,
  name: `${WORDS[i % WORDS.length]} ${WORDS[(i * 7) % WORDS.length]} ${WORDS[(i * 13) % WORDS.length]}`,
  price: ((i * 7919) % 10000) / 100,
  stock: (i * 31) % 50,
}));

function search(q) {
  const terms = q.toLowerCase().split(/\s+/).filter(Boolean);
  return items
    .map((it) => ({ it, score: terms.reduce((s, t) => s + (it.name.includes(t) ? 1 : 0), 0) }))
    .filter((x) => x.score > 0 && x.it.stock > 0)
    .sort((a, b) => b.score - a.score || a.it.price - b.it.price)
    .slice(0, 50)
    .map((x) => x.it);
}

http
  .createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    if (url.pathname !== '/search') return res.end('ok\n');
    const found = search(url.searchParams.get('q') || 'oak lamp');
    res.setHeader('content-type', 'application/json');
    return res.end(JSON.stringify({ count: found.length, items: found }));
  })
  .listen(Number(process.env.PORT) || 3000);
