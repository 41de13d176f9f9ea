#!/usr/bin/env node
'use strict';

// What running the deployments as containers costs: /ping throughput and latency through
// nginx for each deployment, as local processes (the embedded default) and as compose
// containers on the same machine, measured the same way (wrk, closed loop).
// The engine is DOCKER_HOST's; with --private-engine (root, Debian) the script starts its own
// like the container smoke test, builds from a base made here, and stops it at the end.
//   node bench/containers-vs-local.js [--private-engine] [--concurrency 50] [--seconds 10] [--rounds 2]
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { COURSE: PRESETS, resolveDeployment } = require('../lab/topology/deployments');
const { placeDeployment } = require('../lab/runtime/deploy-plan');
const { runtimeFor } = require('../lab/runtime');
const { own, cleanup, trapSignals } = require('../lab/ownership/cleanups');
const wrk = require('./wrk');
const { bench, flag, common } = require('./kit');

async function measure(url, values) {
  const r = await wrk(url, { connections: values.concurrency, seconds: values.seconds });
  return { ...r, rps: Math.round(r.rps) };
}

async function measureDeployment(engine, deployment, env, values) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${engine}-`));
  const runtime = runtimeFor(engine, { stateDir, env, log: (m) => process.stderr.write(`  ${m}\n`) });
  const release = own(() => runtime.down());
  try {
    const { ports, graph } = placeDeployment(deployment, { portBase: values['port-base'], runtime: engine });
    const state = await runtime.up(deployment, ports, { graph });
    const url = `${state.url}/ping`;
    await measure(url, values); // warm-up: JIT, nginx's upstream connections
    const runs = [];
    for (let r = 0; r < values.rounds; r++) runs.push(await measure(url, values));
    const med = (key) => runs.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    return { rps: med('rps'), p99Ms: med('p99Ms'), non2xx: runs.reduce((a, x) => a + x.non2xx, 0) };
  } finally {
    await runtime.down();
    release();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

async function run(values) {
  trapSignals();
  let env = process.env;
  let engine = null;
  if (values['private-engine']) {
    const { PrivateEngine, unavailable } = require('../lab/runtime/private-engine');
    const why = unavailable();
    if (why) throw new Error(`--private-engine: ${why}`);
    engine = new PrivateEngine(fs.mkdtempSync(path.join(os.tmpdir(), 'bench-engine-')));
    own(() => engine.stop());
    await engine.start();
    const base = await engine.makeBase();
    env = { ...engine.env, LAB_BASE_IMAGE: base, LAB_NGINX_IMAGE: base };
  } else if (!process.env.DOCKER_HOST && !fs.existsSync('/var/run/docker.sock')) {
    throw new Error('no Docker engine: set DOCKER_HOST, or run as root with --private-engine');
  }
  const rows = [];
  for (const preset of PRESETS) {
    const deployment = resolveDeployment(preset.name);
    process.stderr.write(`${deployment.name}: local\n`);
    const local = await measureDeployment('local', deployment, process.env, values);
    process.stderr.write(`${deployment.name}: compose\n`);
    const compose = await measureDeployment('compose', deployment, env, values);
    const row = {
      deployment: deployment.name,
      replicas: deployment.replicas,
      workers: deployment.workers,
      localRps: local.rps,
      composeRps: compose.rps,
      ratio: Math.round((compose.rps / local.rps) * 100) / 100,
      localP99Ms: local.p99Ms,
      composeP99Ms: compose.p99Ms,
      non2xx: local.non2xx + compose.non2xx,
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  }
  if (engine) await engine.stop();
  return {
    headline: rows.map((r) => [r.deployment, r.ratio]),
    engine: values['private-engine']
      ? 'private dockerd (Debian docker.io), images from a local debootstrap base'
      : 'DOCKER_HOST',
    method: `wrk through nginx's published port, ${values.concurrency} connections, ${values.seconds} s per measurement, median of ${values.rounds} rounds after a warm-up; generator, engine and service share the machine`,
    rows,
  };
}

module.exports = bench(
  {
    name: 'containers-vs-local',
    usage:
      'node bench/containers-vs-local.js [--private-engine] [--concurrency 50] [--seconds 10] [--rounds 2] [--port-base 8080]',
    flags: {
      concurrency: common.concurrency(50),
      seconds: common.seconds(10),
      rounds: common.rounds(2),
      'port-base': common.portBase(8080),
      'private-engine': flag.bool(),
    },
    run,
    cleanup,
    exit: true,
  },
  module,
);
