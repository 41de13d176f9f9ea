'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const connectPm2 = require('./pm2');
const { pm2AppOf } = require('./pm2-app');
const { replicaStarter } = require('./replica-start');
const { readPm2Pid } = require('./pm2-pid');
const { detect, createGroup, removeGroup } = require('./cgroups');
const { connectionsTo } = require('./connections');
const { assertFree, FIRST_REPLICA } = require('../topology/ports');
const { LIMITS } = require('../topology/deployments');
const { nodeOf } = require('../topology/graph');
const { kindOf } = require('../kinds');
const { check, identify } = require('../ownership/identity');
const { findOwned } = require('../ownership/scan');
const { tree, isAlive, sleep } = require('../ownership/procs');
const { get } = require('../http');
const { upstreamOf } = require('./readiness');

// Replicas that come and go while a local deployment is up (npm run scale, --autoscale, a
// rollout), as a Kubernetes Deployment's pods do behind their Service:
//   added:   a name never used before and a free port, its control group, started under pm2
//            as the first ones were (lab/runtime/replica-start.js), ready (it answers), and
//            only then in the entry's config, which the entry reloads without dropping a
//            connection (lab/kinds/: nginx SIGHUP, HAProxy's master SIGUSR2, `caddy reload`,
//            the lab's balancer SIGHUP);
//   removed: out of the entry's config first (drained: the entry sends it nothing new, seen
//            through the entry), then SIGTERM (after `preStopS`, a preStop hook's wait, until
//            no connection to it is left), SIGKILL after `graceS` (Kubernetes'
//            terminationGracePeriodSeconds), then forgotten by pm2 and its group removed.
//            What it had in flight at its SIGTERM is its own to finish, as in Kubernetes.
// Every step's time is returned, for the run's record of what happened when.

// Why a deployment's replicas cannot change while it runs, or null.
function elasticWhy(state) {
  const d = state.deployment;
  if (!state.graph.entry) return 'it has no balancer (--balancer none): its clients hold the list of replicas';
  if (d.edges) return 'its caching edges (cdn) would each need their upstreams changed; not done yet';
  const kind = kindOf(d.balancer.kind);
  if (!kind.host?.reload) return `its entry (${kind.name}) cannot take a new list of replicas while it runs`;
  return null;
}

// The entry's name for a replica in its answers (X-Lab-Upstream), or the lab's X-Instance.
function answeredBy(r, state) {
  return state.deployment.app ? upstreamOf(r) : r.headers['x-instance'];
}
const isReplica = (answer, node, state) =>
  answer === node.name || String(answer || '').endsWith(`${state.host}:${node.port}`);

// The next replica's name and a free port among the deployment's replica slots: one no
// replica of this deployment had before while there is one (a port names a replica in the
// entry's answers: two replicas on one port would be told apart by nothing).
function nextSlot(state) {
  const used = new Set(state.graph.nodes.filter((n) => n.kind === 'service').map((n) => n.port));
  const before = new Set(state.portsUsed || []);
  const free = [];
  for (let i = 0; i < LIMITS.replicas.max; i++) {
    const port = state.ports.base + FIRST_REPLICA + i;
    if (!used.has(port)) free.push(port);
  }
  const port = free.find((p) => !before.has(p)) ?? free[0];
  if (port !== undefined) {
    state.portsUsed = [...new Set([...before, ...used, port])];
    return { name: `replica-${state.replicaSeq}`, port };
  }
  throw labError('LAB_ERR_USAGE', `a deployment has at most ${LIMITS.replicas.max} replicas at once`);
}

// The current pid of a node the lab started: a daemon of its own (nginx) proven by its
// identity, else pm2's pid file when that process carries the folder's token.
function pidOf(rt, state, name) {
  if (state.pids?.[name]) {
    const id = state.owned?.[name];
    if (id && check(id) === 'alive') return id.pid;
    throw labError('LAB_ERR_PROCESS', `reloading ${name}`, 'its process is no longer the one the lab started');
  }
  const pid = readPm2Pid(state.pm2Home, name);
  if (pid && findOwned(rt.state.token()).includes(pid)) return pid;
  const id = state.owned?.[name];
  if (id && check(id) === 'alive') return id.pid;
  throw labError('LAB_ERR_PROCESS', `reloading ${name}`, 'no process of the lab runs it');
}

// The entry's config rendered again from the graph's replicas, then reloaded by its kind.
async function reloadEntry(rt, state) {
  const name = state.graph.entry;
  const node = nodeOf(state.graph, name);
  const kind = kindOf(node.kind);
  const address = (n) => `${state.host}:${nodeOf(state.graph, n).port}`;
  const ctx = {
    ...state.proxyContexts[name],
    deployment: state.deployment,
    node,
    container: false,
    upstreams: node.upstreams.map(address),
  };
  if (kind.config) fs.writeFileSync(ctx.paths.confFile, kind.config(ctx));
  if (kind.reload?.file) fs.writeFileSync(...kind.reload.file(ctx));
  await kind.host.reload(ctx, pidOf(rt, state, name));
}

// Asks through the entry until `done(answers)` (each answer: who answered), at most timeoutMs.
async function throughEntry(rt, state, done, timeoutMs = 15000) {
  const layer4 = kindOf(state.deployment.balancer.kind).layer === 4;
  // (An L4 entry names no replica: its reload is given a second.)
  if (layer4) return sleep(1000);
  const seen = [];
  const deadline = Date.now() + timeoutMs;
  let i = 0;
  while (Date.now() < deadline) {
    try {
      const r = await get(`${state.url}/?lab-elastic=${Date.now()}-${i++}`, { timeoutMs: 2000, ca: rt.ca });
      seen.push(answeredBy(r, state));
      if (done(seen)) return null;
    } catch {
      // the entry between two configs: asked again
    }
    await sleep(20);
  }
  throw labError('LAB_ERR_UNHEALTHY', 'the entry after its reload', `no change seen within ${timeoutMs / 1000} s`);
}

const now = () => Date.now();
const SETTLE_MS = 300;

// Adds one replica (app: another version of your service, for a rollout's new replicas).
// -> { name, port, startedAt, readyAt, joinedAt } (ms since the epoch).
async function addReplica(rt, state, { app = null, log = () => {} } = {}) {
  const why = elasticWhy(state);
  if (why) throw labError('LAB_ERR_ELASTIC', why);
  const { name, port } = nextSlot(state);
  await assertFree([{ port, role: name }], state.host);
  const template = state.graph.nodes.find((n) => n.kind === 'service');
  const version = app ?? state.deployment.app;
  const node = { ...template, name, port, ...(version ? { app: version.name } : {}) };
  state.replicaSeq += 1;
  state.graph = { ...state.graph, nodes: [...state.graph.nodes, node] };
  rt.writeState(state);
  const startedAt = now();
  log(`${name}: starting on port ${port}${app ? ` (${app.name} from ${app.dir})` : ''}`);
  // Its groups first: capped as the first replica was, or one of its own to stop it by.
  const joins = {};
  const sys = state.cgroups ? detect() : null;
  if (sys) {
    const first = Object.keys(state.caps || {}).find((n) => nodeOf(state.graph, n)?.kind === 'service');
    joins[name] = createGroup(sys, state.cgroups.token, name, first ? state.caps[first] : {}, {
      tasks: node.workers || 1,
    });
    if (first) state.caps = { ...state.caps, [name]: state.caps[first] };
  }
  const pm2 = await rt.step(() => connectPm2(state.pm2Home));
  try {
    const app2 = pm2AppOf(state, joins, path.join(rt.stateDir, 'logs'));
    await rt.step(() => pm2.start(app2(name, ...replicaStarter(state)(node, version))));
    await rt.recordProcesses(state, pm2);
    const url = `http://${state.host}:${port}`;
    if (version) await rt.waitApp(version, node, url, pm2, Boolean(state.replicaEnv.probeAddress));
    else
      await rt.waitHealthy(
        name,
        `${url}/healthz`,
        (a) => new Set(a.map((r) => r.headers['x-worker'])).size >= node.workers,
      );
  } catch (err) {
    // A replica that never got ready is taken away whole: no process, group or node left.
    if (!rt.aborting) {
      await pm2.delete(name).catch(() => {});
      if (sys) await removeGroup(sys, state.cgroups.token, name);
      forget(state, name);
      rt.writeState(state);
    }
    throw err;
  } finally {
    pm2.disconnect();
  }
  const readyAt = now();
  const entry = nodeOf(state.graph, state.graph.entry);
  entry.upstreams = [...entry.upstreams, name];
  state.graph = { ...state.graph, replicas: state.graph.nodes.filter((n) => n.kind === 'service').length };
  rt.writeState(state);
  await reloadEntry(rt, state);
  await throughEntry(rt, state, (seen) => seen.some((a) => isReplica(a, node, state)));
  const joinedAt = now();
  log(`${name}: in the entry after ${((joinedAt - startedAt) / 1000).toFixed(1)} s`);
  return { name, port, startedAt, readyAt, joinedAt };
}

// Removes one replica. -> { name, port, leftAt, drainedAt, connectionsLeft (at its SIGTERM), sigtermAt, exitedAt,
// killed (SIGKILL at the grace), exitCode }.
async function removeReplica(rt, state, name, { graceS = 30, preStopS = 0, log = () => {} } = {}) {
  const node = nodeOf(state.graph, name);
  if (!node || node.kind !== 'service') throw labError('LAB_ERR_USAGE', `no replica named ${name}`);
  const entry = nodeOf(state.graph, state.graph.entry);
  const started = now();
  entry.upstreams = entry.upstreams.filter((n) => n !== name);
  rt.writeState(state);
  await reloadEntry(rt, state);
  // Each kind takes its new config within milliseconds of being told (nginx's new workers,
  // HAProxy's new worker, Caddy's reload call, the lab's balancer at once): from then on it
  // sends the replica nothing new. (Asking through the entry to see it would take the time of
  // a request of yours, which its requests in flight would use to finish unseen.)
  await sleep(SETTLE_MS);
  const leftAt = now();
  // Drained: the entry sends it nothing new (above). Its requests in flight are its own to
  // finish on SIGTERM, as in Kubernetes; preStopS (a preStop hook's wait) holds the SIGTERM
  // until no connection to it is left, at most that long.
  const drainUntil = leftAt + preStopS * 1000;
  let left = connectionsTo(node.port);
  while (left > 0 && now() < drainUntil) {
    await sleep(100);
    left = connectionsTo(node.port);
  }
  const drainedAt = now();
  log(
    `${name}: out of the entry${preStopS ? ` (${left ? `${left} connection(s) still open after ${preStopS} s` : `no connection left after ${((drainedAt - leftAt) / 1000).toFixed(1)} s`})` : `, ${left} connection(s) open`}; SIGTERM`,
  );
  const stop = await stopReplica(rt, state, name, graceS);
  const sys = state.cgroups ? detect() : null;
  if (sys) await removeGroup(sys, state.cgroups.token, name);
  forget(state, name);
  rt.writeState(state);
  log(
    `${name}: ${stop.killed ? `SIGKILLed at its grace (${graceS} s)` : `exited ${stop.exitCode === 0 ? 'cleanly' : `with ${stop.exitCode}`} ${((stop.exitedAt - stop.sigtermAt) / 1000).toFixed(1)} s after SIGTERM`}`,
  );
  return { name, port: node.port, startedAt: started, leftAt, drainedAt, connectionsLeft: left, ...stop };
}

// A replica out of the state: its node, cap, identity and process record.
function forget(state, name) {
  const nodes = state.graph.nodes.filter((n) => n.name !== name);
  for (const n of nodes) if (n.upstreams) n.upstreams = n.upstreams.filter((u) => u !== name);
  state.graph = { ...state.graph, nodes, replicas: nodes.filter((n) => n.kind === 'service').length };
  if (state.caps?.[name]) state.caps = Object.fromEntries(Object.entries(state.caps).filter(([n]) => n !== name));
  delete state.owned[name];
  state.processes = state.processes.filter((p) => p.name !== name);
}

// SIGTERM through pm2 (which then neither restarts it nor forgets it yet), SIGKILL to the
// replica's whole tree once graceS has passed, then pm2 forgets it.
async function stopReplica(rt, state, name, graceS) {
  const pid = pidOf(rt, state, name);
  const id = identify(pid);
  const members = tree(pid);
  const pm2 = await rt.step(() => connectPm2(state.pm2Home));
  try {
    const sigtermAt = now();
    const stopping = pm2.stop(name, (graceS + 15) * 1000).catch((err) => err);
    let killed = false;
    while (isAlive(pid) && check(id) === 'alive') {
      if (now() - sigtermAt >= graceS * 1000) {
        for (const p of members) {
          try {
            process.kill(p, 'SIGKILL');
          } catch {
            // gone meanwhile
          }
        }
        killed = true;
        break;
      }
      await sleep(25);
    }
    const exitedAt = now();
    await stopping;
    const entry = (await pm2.list()).find((p) => p.name === name);
    const exitCode = killed ? null : (entry?.pm2_env?.exit_code ?? null);
    await pm2.delete(name);
    return { sigtermAt, exitedAt, killed, exitCode };
  } finally {
    pm2.disconnect();
  }
}

module.exports = { addReplica, removeReplica, reloadEntry, elasticWhy };
