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
const { parseArgs } = require('node:util');
const describeMachine = require('../common/machine');
const { COURSE: PRESETS, resolveDeployment } = require('../lab/topology/deployments');
const { planPorts } = require('../lab/topology/ports');
const { runtimeFor } = require('../lab/runtime');
const { own, cleanup, trapSignals } = require('../lab/ownership/cleanups');
const wrk = require('./wrk');

const { values } = parseArgs({
  options: {
    concurrency: { type: 'string', default: '50' },
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '2' },
    'port-base': { type: 'string', default: '8080' },
    'private-engine': { type: 'boolean', default: false },
  },
});
const C = Number(values.concurrency);
const S = Number(values.seconds);

async function measure(url) {
  const r = await wrk(url, { connections: C, seconds: S });
  return { ...r, rps: Math.round(r.rps) };
}

async function measureDeployment(engine, deployment, env) {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-${engine}-`));
  const runtime = runtimeFor(engine, { stateDir, env, log: (m) => process.stderr.write(`  ${m}\n`) });
  const release = own(() => runtime.down());
  try {
    const state = await runtime.up(deployment, planPorts(Number(values['port-base']), deployment.replicas));
    const url = `${state.url}/ping`;
    await measure(url); // warm-up: JIT, nginx's upstream connections
    const runs = [];
    for (let r = 0; r < Number(values.rounds); r++) runs.push(await measure(url));
    const med = (key) => runs.map((x) => x[key]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    return { rps: med('rps'), p99Ms: med('p99Ms'), non2xx: runs.reduce((a, x) => a + x.non2xx, 0) };
  } finally {
    await runtime.down();
    release();
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
}

async function main() {
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
    const local = await measureDeployment('local', deployment, process.env);
    process.stderr.write(`${deployment.name}: compose\n`);
    const compose = await measureDeployment('compose', deployment, env);
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
  const result = {
    bench: 'containers-vs-local',
    date: new Date().toISOString(),
    machine: describeMachine(),
    engine: values['private-engine']
      ? 'private dockerd (Debian docker.io), images from a local debootstrap base'
      : 'DOCKER_HOST',
    method: `wrk through nginx's published port, ${C} connections, ${S} s per measurement, median of ${values.rounds} rounds after a warm-up; generator, engine and service share the machine`,
    rows,
  };
  fs.writeFileSync(path.join(__dirname, 'results', 'containers-vs-local.json'), `${JSON.stringify(result, null, 2)}\n`);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  process.exit(0);
}

main().catch(async (err) => {
  process.stderr.write(`${err.stack}\n`);
  await cleanup();
  process.exit(1);
});
