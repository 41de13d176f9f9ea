#!/usr/bin/env node
'use strict';

// What it can take (issue 40), at default settings: `npm run capacity` on a service the lab
// has never seen (test/fixtures/apps/shop, /api/items: about 2 ms of CPU a request) over
// single and replicated, under p99<200. Goals: a bracketed, verified capacity for both,
// replicated above single on this 2-core machine, and the search under 10 minutes; then the
// lab's own /ping on single, which this machine or the generator bounds.
//   node bench/capacity.js [--deployments single,replicated] [--port-base 8700]
// Writes bench/results/capacity.json with the machine.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, common } = require('./kit');

const shop = path.join(__dirname, '..', 'test', 'fixtures', 'apps', 'shop');
const place = (portBase) => [
  '--port-base',
  String(portBase),
  '--state-dir',
  fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cap-')),
  '--results-dir',
  fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cap-r-')),
];

async function search(args, portBase) {
  const t0 = Date.now();
  const r = await lab(['capacity', ...args, '--json', ...place(portBase)]);
  if (r.code !== 0 && !r.out.trim()) throw new Error(`capacity ${args.join(' ')} exited ${r.code}`);
  const out = JSON.parse(r.out);
  return {
    args: args.join(' '),
    minutes: Math.round((Date.now() - t0) / 600) / 100,
    exit: r.code,
    deployments: out.deployments.map((d) => ({
      deployment: d.deployment,
      maxRate: d.maxRate,
      text: d.text,
      verified: d.verified && {
        rate: d.verified.rate,
        held: d.verified.held,
        runs: d.verified.runs,
        p99: d.verified.p99,
      },
      broke: d.broke && { rate: d.broke.rate, p99: d.broke.p99, failed: d.broke.failed },
      p50: d.p50,
      p99: d.p99,
      cpuMsPerRequest: d.cpuMsPerRequest,
      cpuMsPerRequestByTier: d.cpuMsPerRequestByTier,
      memoryMiB: d.memoryMiB,
      perCore: d.perCore,
      levels: d.levels,
    })),
    best: out.best && out.best.text,
  };
}

async function run(values) {
  const portBase = values['port-base'];
  const shopRun = await search(
    ['/api/items', '--app', shop, '--deployments', values.deployments, '--slo', 'p99<200'],
    portBase,
  );
  const [single, replicated] = shopRun.deployments;
  const ping = await search(['ping', '--deployments', 'single', '--slo', 'p99<200'], portBase);
  const goals = {
    bracketed: shopRun.deployments.every((d) => d.maxRate !== null && d.broke !== null),
    verified: shopRun.deployments.every((d) => d.verified && d.verified.held === d.verified.runs),
    replicatedAboveSingle: Boolean(single && replicated && replicated.maxRate > single.maxRate),
    underTenMinutes: shopRun.minutes < 10,
  };
  return {
    headline: goals,
    shop: shopRun,
    goals,
    ping,
  };
}

module.exports = bench(
  {
    name: 'capacity',
    usage: 'node bench/capacity.js [--deployments single,replicated] [--port-base 8700]',
    flags: {
      deployments: { type: 'string', default: 'single,replicated' },
      'port-base': common.portBase(8700),
    },
    run,
  },
  module,
);
