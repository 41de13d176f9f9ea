#!/usr/bin/env node
'use strict';

// The nginx tax per deployment: /ping throughput with a closed-loop generator at fixed
// concurrency, straight to the replica processes vs through nginx, in the same run.
// Target (issue 3): through nginx >= 0.9x straight to the same processes.
// The generator is wrk (Debian package) when installed: a Node generator tops out near
// 6,000 req/s here, below what the deployments serve, and would measure itself. Straight
// to several replicas means one wrk per replica with its share of the connections.
//   node bench/nginx-tax.js [--concurrency 50] [--seconds 10] [--rounds 2]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { bench, common } = require('./kit');
const { COURSE: PRESETS, resolveDeployment } = require('../lab/topology/deployments');
const { placeDeployment } = require('../lab/runtime/deploy-plan');
const LocalRuntime = require('../lab/runtime/local');
const { own, cleanup, trapSignals } = require('../lab/ownership/cleanups');
const { wrkSplit } = require('./wrk');

async function run(values) {
  const C = values.concurrency;
  const S = values.seconds;
  const measure = (urls) => wrkSplit(urls, { connections: C, seconds: S });
  // Ctrl-C or a kill takes the current deployment down with it.
  trapSignals();
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-nginx-'));
  const rows = [];
  for (const preset of PRESETS) {
    const deployment = resolveDeployment(preset.name);
    const { ports, graph } = placeDeployment(deployment, { portBase: values['port-base'] });
    const runtime = new LocalRuntime({ stateDir });
    const release = own(() => runtime.down());
    const state = await runtime.up(deployment, ports, { graph });
    try {
      const direct = ports.replicas.map((p) => `http://127.0.0.1:${p}/ping`);
      const viaNginx = [`${state.url}/ping`];
      await measure(viaNginx); // warm-up: JIT, nginx's upstream connections
      const d = [];
      const n = [];
      for (let r = 0; r < values.rounds; r++) {
        // Alternate the order so drift over time does not favour one side.
        if (r % 2 === 0) {
          d.push(await measure(direct));
          n.push(await measure(viaNginx));
        } else {
          n.push(await measure(viaNginx));
          d.push(await measure(direct));
        }
      }
      const med = (xs) => xs.map((x) => x.rps).sort((a, b) => a - b)[Math.floor(xs.length / 2)];
      const row = {
        deployment: deployment.name,
        replicas: deployment.replicas,
        workers: deployment.workers,
        directRps: med(d),
        nginxRps: med(n),
        ratio: Math.round((med(n) / med(d)) * 100) / 100,
        non2xx: [...d, ...n].reduce((a, x) => a + x.non2xx, 0),
      };
      row.meetsTarget = row.ratio >= 0.9;
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    } finally {
      await runtime.down();
      release();
    }
  }
  return {
    headline: rows.map((r) => [r.deployment, r.ratio]),
    method: `wrk, ${C} connections in all, ${S} s per measurement, median of ${values.rounds} alternating rounds; generator, nginx and service share the machine`,
    target: 'through nginx >= 0.9x straight to the same processes',
    rows,
  };
}

module.exports = bench(
  {
    name: 'nginx-tax',
    usage: 'node bench/nginx-tax.js [--concurrency 50] [--seconds 10] [--rounds 2] [--port-base 8080]',
    flags: {
      concurrency: common.concurrency(50),
      seconds: common.seconds(10),
      rounds: common.rounds(2),
      'port-base': common.portBase(8080),
    },
    run,
    cleanup,
    exit: true,
  },
  module,
);
