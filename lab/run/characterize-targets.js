'use strict';

// What `npm run characterize` measures, brought up for it and owned until the command ends: the
// named black boxes (bbox1, bbox2: the lab's re-implementations, started as a process of their
// own), the same through the lab's service, or your service as `single` behind nginx.
// p: the command's plan (lab/commands/characterize.js).

const path = require('node:path');
const { spawn } = require('node:child_process');
const { ROOT } = require('../paths');
const { helperEnv } = require('../ownership/adopt');
const { own } = require('../ownership/cleanups');
const { labError } = require('../../common/errors');
const { loadConfig: loadBboxConfig } = require('../../bbox/config');
const { get } = require('../http');
const { assertFree } = require('../topology/ports');
const { placeDeployment } = require('../runtime/deploy-plan');
const { resolveDeployment } = require('../topology/deployments');
const { runtimeFor } = require('../runtime');

// The named boxes' flags: the key, and explicit delays when scaled.
function bboxArgs(p) {
  const args = ['--key', p.key];
  if (p.delayScale !== 1) {
    const { services } = loadBboxConfig({ flags: { '--key': p.key }, env: {} });
    args.push('--bbox1-delay', String(Math.max(1, Math.round(services.bbox1.delayMs * p.delayScale))));
    args.push('--bbox2-delay', String(Math.max(1, Math.round(services.bbox2.delayMs * p.delayScale))));
  }
  return args;
}

async function startBoxes(p, log) {
  const { ports } = p;
  await assertFree(
    [
      { port: ports.bbox1, role: 'bbox1' },
      { port: ports.bbox2, role: 'bbox2' },
    ],
    p.ctx.host,
  );
  const child = spawn(
    process.execPath,
    [path.join(ROOT, 'bbox'), '--port', String(ports.bbox1), '--host', p.ctx.host, ...bboxArgs(p)],
    { stdio: ['ignore', 'ignore', 'pipe'], env: helperEnv() },
  );
  own(
    () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        child.kill('SIGTERM');
      }),
  );
  const url = `http://${p.ctx.host}:${p.target === 'bbox1' ? ports.bbox1 : ports.bbox2}/`;
  const deadline = Date.now() + 10000;
  for (;;) {
    try {
      await get(url, { timeoutMs: 30000 });
      break;
    } catch (err) {
      if (Date.now() > deadline) throw labError('LAB_ERR_UNHEALTHY', 'the black boxes', err.message);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  log(`started the black boxes (key "${p.key}") on ${p.ctx.host}:${ports.bbox1}-${ports.bbox2}`);
  return url;
}

async function startThroughService(p, log) {
  const runtime = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host, log });
  runtime.assertNotUp();
  own(() => runtime.down());
  const deployment = resolveDeployment('single');
  const { ports, graph } = placeDeployment(deployment, { portBase: p.ctx.portBase });
  const state = await runtime.up(deployment, ports, {
    graph,
    bbox: { key: p.key, args: bboxArgs(p).slice(2) },
    probe: !p.values['no-probe'],
  });
  return `${state.url}/${p.target}`;
}

// Your service, as `single` behind nginx in this state folder, until the command ends.
async function startApp(p, log) {
  const runtime = runtimeFor('local', { stateDir: p.ctx.stateDir, host: p.ctx.host, log });
  runtime.assertNotUp();
  own(() => runtime.down());
  const deployment = resolveDeployment('single', { app: p.app });
  const { ports, graph } = placeDeployment(deployment, { portBase: p.ctx.portBase });
  const state = await runtime.up(deployment, ports, {
    graph,
    probe: !p.values['no-probe'],
  });
  return `${state.url}${p.target}`;
}

module.exports = { startBoxes, startThroughService, startApp };
