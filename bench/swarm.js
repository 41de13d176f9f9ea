#!/usr/bin/env node
'use strict';

// Swarm as a runtime and as a balancer (issue 16, seed 004): /ping throughput and p99 through
// each entry on the same tasks - the lab's nginx, the lab's node balancer, swarm's routing
// mesh - at 1, 3 and 5 replicas (1 worker each), wrk in a closed loop; and the time from
// `deploy` to every task answering, and from `scale` to the new tasks answering.
// The engine is DOCKER_HOST's (a swarm manager); with --private-engine (root, Debian) the
// script starts its own like the container smoke test, makes it a single-node swarm, and
// leaves the swarm and stops it at the end. The mesh is marked not run, with why, where the
// kernel has no IPVS.
//   node bench/swarm.js [--private-engine] [--replicas 1,3,5] [--concurrency 50] [--seconds 10]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { resolveDeployment } = require('../lab/topology/deployments');
const { placeDeployment } = require('../lab/runtime/deploy-plan');
const SwarmRuntime = require('../lab/runtime/swarm');
const { own, cleanup, trapSignals } = require('../lab/ownership/cleanups');
const wrk = require('./wrk');
const { bench, flag, common } = require('./kit');

const log = (m) => process.stderr.write(`  ${m}\n`);

async function one(kind, replicas, env, values) {
  const C = values.concurrency;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-swarm-${kind}-`));
  const runtime = new SwarmRuntime({ stateDir, env, log });
  const release = own(() => runtime.down());
  const deployment = resolveDeployment('replicated', { replicas, workers: 1, balancer: kind });
  try {
    const t0 = Date.now();
    const { ports, graph } = placeDeployment(deployment, { portBase: values['port-base'], runtime: 'swarm' });
    const state = await runtime.up(deployment, ports, { graph });
    const deployS = (Date.now() - t0) / 1000;
    const url = `${state.url}/ping`;
    await wrk(url, { connections: C, seconds: 3 }); // warm-up
    const r = await wrk(url, { connections: C, seconds: values.seconds });
    // One more task: from `scale` to it answering through the entry.
    const scaled = await runtime.scale(replicas + 1);
    return { rps: Math.round(r.rps), p99Ms: r.p99Ms, non2xx: r.non2xx, deployS, scaleS: scaled.seconds };
  } catch (err) {
    return { notRun: err.message.split('\n')[0] };
  } finally {
    await runtime.down().catch(() => {});
    release();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

async function run(values) {
  trapSignals();
  let env = process.env;
  if (values['private-engine']) {
    const { PrivateEngine, unavailable } = require('../lab/runtime/private-engine');
    const why = unavailable();
    if (why) throw new Error(`--private-engine: ${why}`);
    const engine = new PrivateEngine(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engine-')));
    own(async () => {
      engine.docker(['swarm', 'leave', '--force']);
      await engine.stop();
    });
    await engine.start();
    const base = await engine.makeBase();
    const init = engine.docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    if (init.code !== 0) throw new Error(`docker swarm init: ${init.out.trim()}`);
    env = { ...engine.env, LAB_BASE_IMAGE: base, LAB_NGINX_IMAGE: base };
  }
  const rows = [];
  for (const replicas of values.replicas.split(',').map(Number)) {
    for (const kind of values.balancers.split(',')) {
      process.stderr.write(`${kind}, ${replicas} replica(s)\n`);
      const row = { balancer: kind, replicas, ...(await one(kind, replicas, env, values)) };
      rows.push(row);
      process.stderr.write(`${JSON.stringify(row)}\n`);
    }
  }
  await cleanup();
  return {
    headline: rows.map((r) => [r.balancer, r.replicas, r.rps ?? r.notRun]),
    engine: values['private-engine']
      ? 'private dockerd (Debian docker.io) as a single-node swarm, images from a local debootstrap base'
      : 'DOCKER_HOST',
    method: `replicated (R x 1) as a stack; wrk /ping through the entry's port, ${values.concurrency} connections, ${values.seconds} s after a 3 s warm-up; deploy = lab up to every task answering through the entry; scale = R -> R+1 to the new task answering; generator, engine and tasks share the machine`,
    rows,
  };
}

module.exports = bench(
  {
    name: 'swarm',
    usage:
      'node bench/swarm.js [--private-engine] [--replicas 1,3,5] [--balancers nginx,node,mesh] [--concurrency 50] [--seconds 10] [--port-base 8080]',
    flags: {
      replicas: { type: 'string', default: '1,3,5' },
      balancers: { type: 'string', default: 'nginx,node,mesh' },
      concurrency: common.concurrency(50),
      seconds: common.seconds(10),
      'port-base': common.portBase(8080),
      'private-engine': flag.bool(),
    },
    run,
    cleanup,
    exit: true,
  },
  module,
);
