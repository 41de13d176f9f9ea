'use strict';

const fs = require('node:fs');
const { labError } = require('../../common/errors');
const { composeProject, containerConfig } = require('../topology/compose-file');
const { dump } = require('../topology/compose-write');
const { nodeOf } = require('../topology/graph');
const { kindOf } = require('../kinds');
const { INNER } = require('../kinds/common/proxy');
const { get } = require('../http');
const { upstreamOf } = require('./readiness');
const { ROOT } = require('../paths');
const { run } = require('./engine-run');

// Replicas that come and go in a compose project (npm run scale, --autoscale, a rollout), as
// lab/runtime/local-replicas.js does them locally: a new replica is a new service of the
// project (compose file rendered again from the graph), started alone, ready (the lab's
// service: its health check; yours: it answers inside its container), then in the entry's
// config, which nginx reloads in its container; a removed one leaves the entry first, then
// `docker-compose stop -t GRACE` (SIGTERM to its init, SIGKILL at the grace, as Docker
// stops any container), then its container is removed.

const SETTLE_MS = 300;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const now = () => Date.now();

function elasticWhy(state) {
  if (!state.graph.entry) return 'it has no balancer (--balancer none): its clients hold the list of replicas';
  if (state.deployment.edges) return 'its caching edges (cdn) would each need their upstreams changed; not done yet';
  if (!kindOf(state.deployment.balancer.kind).nginx)
    return `on compose the entry is told of new replicas by nginx's reload, and this one is ${state.deployment.balancer.kind}`;
  return null;
}

function writeProject(state) {
  fs.writeFileSync(
    state.composeFile,
    dump(
      composeProject(state.deployment, {
        root: ROOT,
        confs: state.confs,
        caps: state.caps || {},
        appContext: state.appContext,
        graph: state.graph,
      }),
    ),
  );
}

// The entry's config from the graph's replicas (its file is mounted into its container, and
// rewritten in place), then `nginx -c CONF -s reload` inside it (the config names the pid
// file the master wrote; without -c nginx looks for the package's /run/nginx.pid).
async function reloadEntry(rt, state) {
  const entry = state.graph.entry;
  fs.writeFileSync(state.confs[entry], containerConfig(state.deployment, { node: entry, graph: state.graph }));
  const { conf } = kindOf(state.deployment.balancer.kind).container;
  const r = await rt.compose(state, ['exec', '-T', entry, 'nginx', '-c', conf, '-s', 'reload']);
  if (r.code !== 0)
    throw labError('LAB_ERR_PROCESS', `reloading ${entry}`, r.out.trim().split('\n').slice(-3).join(' '));
}

async function containerOf(rt, state, name) {
  const r = await rt.compose(state, ['ps', '-q', name]);
  return (
    r.out
      .split('\n')
      .find((l) => /^[0-9a-f]{12,}$/.test(l.trim()))
      ?.trim() ?? null
  );
}

async function inspect(rt, id, format) {
  const r = await run('docker', ['inspect', '-f', format, id], { env: rt.env, timeoutMs: 15000 });
  return r.code === 0 ? r.out.trim() : null;
}

// Ready: the lab's service by its image's health check; yours when it answers HTTP (below
// 500 on --health) inside its container.
async function waitReady(rt, state, name, id, timeoutMs) {
  const app = state.deployment.app;
  const deadline = now() + timeoutMs;
  const probe = `require('http').get({ host: '127.0.0.1', port: ${INNER.service}, path: ${JSON.stringify(app?.health ?? '/')} }, (r) => process.exit(r.statusCode < ${app?.health ? 500 : 600} ? 0 : 1)).on('error', () => process.exit(1))`;
  while (now() < deadline) {
    if (!app) {
      if ((await inspect(rt, id, '{{.State.Health.Status}}')) === 'healthy') return;
    } else {
      const r = await rt.compose(state, ['exec', '-T', name, 'node', '-e', probe]);
      if (r.code === 0) return;
    }
    if ((await inspect(rt, id, '{{.State.Status}}')) === 'exited')
      throw labError('LAB_ERR_UNHEALTHY', name, 'its container exited at start');
    await sleep(500);
  }
  throw labError('LAB_ERR_UNHEALTHY', name, `it did not answer within ${timeoutMs / 1000} s`);
}

// Asks through the entry until an answer names the new replica (its container's address).
async function seenThroughEntry(rt, state, address, timeoutMs = 15000) {
  const deadline = now() + timeoutMs;
  const path = state.deployment.app?.health ?? (state.deployment.app ? '/' : '/healthz');
  for (let i = 0; now() < deadline; i++) {
    try {
      const r = await get(`${state.url}${path}${path.includes('?') ? '&' : '?'}lab-elastic=${i}`, { timeoutMs: 2000 });
      if (upstreamOf(r) === address) return;
    } catch {
      // between two configs
    }
    await sleep(20);
  }
  throw labError('LAB_ERR_UNHEALTHY', 'the entry after its reload', `${address} not seen within ${timeoutMs / 1000} s`);
}

async function addReplica(rt, state, { app = null, log = () => {} } = {}) {
  const why = elasticWhy(state);
  if (why) throw labError('LAB_ERR_ELASTIC', why);
  if (app)
    throw labError(
      'LAB_ERR_ELASTIC',
      '--app-next on compose would need its own image: not done yet (use --engine local)',
    );
  const name = `replica-${state.replicaSeq}`;
  const template = state.graph.nodes.find((n) => n.kind === 'service');
  const node = { ...template, name };
  state.replicaSeq += 1;
  state.graph = { ...state.graph, nodes: [...state.graph.nodes, node] };
  const first = Object.keys(state.caps || {}).find((n) => nodeOf(state.graph, n)?.kind === 'service');
  if (first) state.caps = { ...state.caps, [name]: state.caps[first] };
  rt.writeState(state);
  writeProject(state);
  const startedAt = now();
  log(`${name}: starting its container`);
  const up = await rt.compose(state, ['up', '-d', '--no-deps', name]);
  const id = await containerOf(rt, state, name);
  try {
    if (up.code !== 0 || !id)
      throw labError('LAB_ERR_PROCESS', `docker-compose up ${name}`, up.out.trim().split('\n').slice(-3).join(' '));
    await waitReady(rt, state, name, id, (app?.startTimeoutS ?? 60) * 1000);
  } catch (err) {
    await rt.compose(state, ['rm', '-f', '-s', name]).catch(() => {});
    forget(state, name);
    rt.writeState(state);
    writeProject(state);
    throw err;
  }
  const readyAt = now();
  const address = `${await inspect(rt, id, '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}')}:${INNER.service}`;
  const entry = nodeOf(state.graph, state.graph.entry);
  entry.upstreams = [...entry.upstreams, name];
  state.graph = { ...state.graph, replicas: state.graph.nodes.filter((n) => n.kind === 'service').length };
  rt.writeState(state);
  await reloadEntry(rt, state);
  await seenThroughEntry(rt, state, address);
  await rt.recordProcesses(state);
  const joinedAt = now();
  log(`${name}: in the entry after ${((joinedAt - startedAt) / 1000).toFixed(1)} s`);
  return { name, address, startedAt, readyAt, joinedAt };
}

async function removeReplica(rt, state, name, { graceS = 30, preStopS = 0, log = () => {} } = {}) {
  const node = nodeOf(state.graph, name);
  if (!node || node.kind !== 'service') throw labError('LAB_ERR_USAGE', `no replica named ${name}`);
  const id = await containerOf(rt, state, name);
  const ip = id ? await inspect(rt, id, '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}') : null;
  const entry = nodeOf(state.graph, state.graph.entry);
  const startedAt = now();
  entry.upstreams = entry.upstreams.filter((n) => n !== name);
  rt.writeState(state);
  await reloadEntry(rt, state);
  await sleep(SETTLE_MS);
  const leftAt = now();
  // (A preStop hook's wait: the connections of another namespace are not counted here.)
  if (preStopS) await sleep(preStopS * 1000);
  const drainedAt = now();
  log(`${name}: out of the entry; SIGTERM (docker-compose stop -t ${graceS})`);
  const sigtermAt = now();
  await rt.compose(state, ['stop', '-t', String(graceS), name], { timeoutMs: (graceS + 30) * 1000 });
  const exitedAt = now();
  const exitCode = id ? Number(await inspect(rt, id, '{{.State.ExitCode}}')) : null;
  await rt.compose(state, ['rm', '-f', name]);
  forget(state, name);
  rt.writeState(state);
  writeProject(state);
  await rt.recordProcesses(state);
  const killed = exitCode === 137;
  log(
    `${name}: ${killed ? `SIGKILLed at its grace (${graceS} s)` : `exited ${exitCode === 0 ? 'cleanly' : `with ${exitCode}`}`}`,
  );
  return {
    name,
    address: ip ? `${ip}:${INNER.service}` : null,
    startedAt,
    leftAt,
    drainedAt,
    connectionsLeft: null,
    sigtermAt,
    exitedAt,
    killed,
    exitCode,
  };
}

function forget(state, name) {
  const nodes = state.graph.nodes.filter((n) => n.name !== name);
  for (const n of nodes) if (n.upstreams) n.upstreams = n.upstreams.filter((u) => u !== name);
  state.graph = { ...state.graph, nodes, replicas: nodes.filter((n) => n.kind === 'service').length };
  if (state.caps?.[name]) state.caps = Object.fromEntries(Object.entries(state.caps).filter(([n]) => n !== name));
  state.processes = (state.processes || []).filter((p) => p.name !== name);
}

module.exports = { addReplica, removeReplica, elasticWhy };
