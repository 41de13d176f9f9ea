#!/usr/bin/env node
'use strict';

// What Artillery's HTTP features cost the lab's engine (issue 50): CPU per request of `fast`
// for a script of three requests with cookies and captures (a login whose Set-Cookie the
// virtual user sends back, a JSON capture, a regexp capture, a templated path), against the
// same three requests without them. Goal: within 20%. Rounds interleaved (plain, featured,
// plain, featured...), against a small node:http server of this script's own on 127.0.0.1.
// Writes bench/results/script-features.json with the machine it ran on.
//   node bench/script-features.js [--rate 100] [--seconds 20] [--rounds 3]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const lab = require('./lab');
const { bench, flag, withDefault, common } = require('./kit');

// Three requests a virtual user, with and without the features.
const scripts = (rate, S) => {
  const phases = `  phases: [{ duration: ${S}, arrivalRate: ${rate} }]`;
  return {
    plain: `config:
  target: http://127.0.0.1:1
${phases}
scenarios:
  - flow:
      - post: { url: /login, json: { user: ann } }
      - get: { url: /items }
      - get: { url: /items/7 }
`,
    featured: `config:
  target: http://127.0.0.1:1
${phases}
scenarios:
  - flow:
      - post: { url: /login, json: { user: ann } }
      - get:
          url: /items
          capture:
            - { json: "$.items[0].id", as: id }
            - { regexp: "tag-(\\\\w+)", group: 1, as: tag }
      - get: { url: "/items/{{ id }}?tag={{ tag }}" }
`,
  };
};

// The server: a cookie at login, checked after it; a small JSON list.
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (req.url === '/login') {
      res.writeHead(200, { 'set-cookie': 'sid=abc; Path=/', 'content-type': 'application/json' });
      return res.end('{"ok":true}');
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    return res.end('{"items":[{"id":7,"name":"tea","tag":"tag-green"}]}');
  });
});

async function runOne(name, target, dir) {
  const r = await lab([
    'scenario',
    '--script',
    path.join(dir, `${name}.yml`),
    '--target',
    target,
    '--generator',
    'fast',
    '--keepalive',
    '--no-statsd',
    '--no-graphite',
    '--json',
    '--state-dir',
    path.join(dir, 'state'),
    '--results-dir',
    path.join(dir, 'results'),
  ]);
  if (r.code !== 0) throw new Error(`${name} exited ${r.code}`);
  const s = JSON.parse(r.out);
  const bad = Object.entries(s.codes).filter(([c]) => c !== '200');
  if (bad.length || s.requestsFailed)
    throw new Error(`${name}: not every answer was a 200: ${JSON.stringify(s.codes)}`);
  return { cpuMsPerRequest: s.generator.cpuMsPerRequest, requests: s.requestsSent, p99Ms: s.responseTimeMs.p99 };
}

async function run({ rate, seconds: S, rounds }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-script-features-'));
  for (const [name, text] of Object.entries(scripts(rate, S))) fs.writeFileSync(path.join(dir, `${name}.yml`), text);
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const target = `http://127.0.0.1:${server.address().port}`;
  const results = { plain: [], featured: [] };
  try {
    for (let i = 0; i < rounds; i++) {
      for (const name of ['plain', 'featured']) {
        const r = await runOne(name, target, dir);
        results[name].push(r);
        process.stderr.write(
          `round ${i + 1} ${name}: ${r.cpuMsPerRequest} ms of CPU a request (${r.requests} requests)\n`,
        );
      }
    }
  } finally {
    server.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const plain = median(results.plain.map((r) => r.cpuMsPerRequest));
  const featured = median(results.featured.map((r) => r.cpuMsPerRequest));
  const ratio = Math.round((featured / plain) * 1000) / 1000;
  return {
    headline: { plain, featured, ratio },
    question: 'CPU per request of fast for a script with cookies and captures, against the same requests without',
    goal: 'featured within 20% of plain (ratio <= 1.2)',
    settings: { rate, seconds: S, rounds, generator: 'fast --keepalive' },
    results,
    medianCpuMsPerRequest: { plain, featured },
    ratio,
    met: ratio <= 1.2,
  };
}

module.exports = bench(
  {
    name: 'script-features',
    usage: 'node bench/script-features.js [--rate 100] [--seconds 20] [--rounds 3]',
    flags: {
      rate: withDefault(flag.int(1, 10000), 100),
      seconds: common.seconds(20),
      rounds: common.rounds(3),
    },
    run,
  },
  module,
);
