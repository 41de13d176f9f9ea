'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const StateFile = require('./state-file');
const { assertFree } = require('../topology/ports');
const connectPm2 = require('./pm2');
const { readPm2Pid } = require('./pm2-pid');
const { pm2AppOf } = require('./pm2-app');
const { addReplica, removeReplica, elasticWhy } = require('./local-replicas');
const { stopTree, tree, stopPids } = require('../ownership/procs');
const { identify, check } = require('../ownership/identity');
const { findOwned } = require('../ownership/scan');
const { adoptStateDir } = require('../ownership/adopt');
const { resetDir, removeOwnedDir } = require('../ownership/dirs');
const { installApp } = require('../app/install');
const { STORES, storesEnv } = require('../stores');
const { kindOf, DAEMON_HOSTS } = require('../kinds');
const { plannedGraph, nodeOf, proxyNodes, proxyHostOf } = require('../topology/graph');
const {
  requireCgroups,
  usableCgroups,
  groupMembers,
  createGroup,
  readGroup,
  setCpu,
  removeGroups,
  existingGroups,
  detect,
} = require('./cgroups');

const { replicaEnvOf, replicaStarter } = require('./replica-start');
const { makeCerts, userCerts } = require('../tls/certs');
const { prepareStores, assertNoKeptData, removeStores } = require('./local/stores');
const { proxyPrograms, ownedDaemons, renderProxies } = require('./local/proxies');
const { startersOf, startTiers } = require('./local/tiers');
const { initialState } = require('./local/initial-state');
const { waitHealthy, waitApp } = require('./local/ready');

// The embedded default: the replicas and the black boxes are local processes supervised by
// pm2, nginx is the lab's own process, all of it owned through one state folder
// (`stateDir`). state.json records every process with its identity (pid, start time, boot,
// command line), and every process carries the folder's token in its environment, so `down`
// stops exactly what `up` started, from this process or another one, even when state.json
// is gone, and never a process that merely took a recorded pid.
class LocalRuntime {
  constructor({ stateDir, host = '127.0.0.1', log = () => {} }) {
    this.stateDir = path.resolve(stateDir);
    this.host = host;
    this.log = log;
    this.state = new StateFile(this.stateDir);
    this.pending = null; // the start step in flight, which an interrupt waits for
    this.aborting = false;
  }

  readState() {
    return this.state.read();
  }

  writeState(state) {
    this.state.write(state);
  }

  // What the folder holds: the state (or why it is unreadable), each recorded process
  // checked against its identity, and the lab's processes that no record names.
  inspect({ helpers = true } = {}) {
    const { state, error } = this.state.inspect();
    const entries = state
      ? Object.entries(state.owned || {}).map(([name, id]) => ({ name, ...id, is: check(id) }))
      : [];
    const alive = new Set(entries.filter((e) => e.is === 'alive').map((e) => e.pid));
    const found = findOwned(this.state.token(), { helpers });
    for (const pid of ownedDaemons(this)) found.push(...tree(pid));
    const aliveTrees = new Set([...alive].flatMap((p) => tree(p)));
    const unrecorded = [...new Set(found)].filter((p) => !aliveTrees.has(p));
    return { state, error, entries, unrecorded };
  }

  // Whether anything of this folder still runs.
  isUp(view = this.inspect()) {
    return view.entries.some((e) => e.is === 'alive') || view.unrecorded.length > 0;
  }

  // Refuses when this folder already has a deployment (or leftovers of one) running. Called
  // before taking ownership of a new one: a refused deploy must not stop the one that is up.
  assertNotUp() {
    const view = this.inspect({ helpers: false });
    for (const e of view.entries.filter((x) => x.is === 'stale')) {
      this.log(`state.json names ${e.name} as pid ${e.pid}, which is now another process: ignored, never signalled`);
    }
    if (view.entries.some((e) => e.is === 'alive')) {
      throw labError('LAB_ERR_ALREADY_UP', view.state.deployment.label, this.stateDir);
    }
    if (view.unrecorded.length) {
      throw labError(
        'LAB_ERR_ALREADY_UP',
        `unrecorded lab processes ${view.unrecorded.join(', ')}${view.error ? '; state.json unreadable' : ''}`,
        this.stateDir,
      );
    }
  }

  // Runs one start step, so that an interrupt (down) can wait for it to settle; once a stop
  // is asked for, no further step starts and the one in flight does not go on. `work` is a
  // function, called only when no stop was asked: a step given as a promise had already
  // started (pm2's daemon spawned) when it was refused, and that daemon outlived the
  // interrupted run (an interrupted study's second start found it).
  async step(work) {
    if (this.aborting) throw labError('LAB_ERR_INTERRUPTED', 'a stop request');
    this.pending = Promise.resolve(work());
    let value;
    try {
      value = await this.pending;
    } finally {
      this.pending = null;
    }
    if (this.aborting) throw labError('LAB_ERR_INTERRUPTED', 'a stop request');
    return value;
  }

  record(state, name, pid) {
    const id = identify(pid);
    if (id) state.owned[name] = id;
    this.writeState(state);
  }

  // deployment: from lab/topology/deployments.js; ports: from planPorts (lab/topology/ports.js);
  // options: { graph (the plan's: placeDeployment, lab/runtime/deploy-plan.js),
  //            bbox: { key, args }, serviceEnv, statsd: { host, port } | null,
  //            caps: { [node]: { cpuPct, memoryBytes } } (lab/topology/caps.js) }
  // The deployment's graph (lab/topology/graph.js) says what to start: the black boxes, the
  // replicas, the caching edges, then the entry balancer, each healthy before the next tier.
  async up(deployment, ports, options = {}) {
    this.assertNotUp();
    assertNoKeptData(this, deployment);
    const graph = plannedGraph(options);
    const caps = options.caps || {};
    // Caps need control groups; without caps, your service's replicas still get one each
    // where this process may make them, so `down` stops whatever a replica forked, even a
    // daemon that left its process tree and the lab's token behind (lab/runtime/cgroups.js).
    const cgroups = Object.keys(caps).length ? requireCgroups() : deployment.app ? usableCgroups() : null;
    const proxies = proxyNodes(graph);
    const bins = await proxyPrograms(this, proxies);
    await assertFree(
      graph.nodes.flatMap((n) =>
        (n.ports || [n.port]).map((port, i) => ({ port, role: n.ports ? `bbox${i + 1}` : n.name })),
      ),
      this.host,
    );

    // Your service's dependencies, from its own lock file, when they are missing.
    if (deployment.app) await installApp(deployment.app, this.log);
    adoptStateDir(this.stateDir);
    // From here on, whatever fails or is interrupted takes down what was made so far, the
    // stores' half-made folders included (a failed nginx -t once left a 39 MB cluster).
    try {
      return await this.bringUp(deployment, graph, ports, options, { caps, cgroups, proxies, bins });
    } catch (err) {
      if (!this.aborting) await this.down().catch(() => {});
      throw err;
    }
  }

  // up's steps once the state folder is the lab's: folders, stores, configs, then the tiers.
  async bringUp(deployment, graph, ports, options, { caps, cgroups, proxies, bins }) {
    // Fresh folders (each the lab's own, see lab/ownership/dirs.js): nothing of a previous
    // deployment's pm2 home or nginx prefix survives.
    for (const d of ['pm2', 'nginx', 'nodes', 'logs', 'home'])
      resetDir(path.join(this.stateDir, d), `${d}/ in --state-dir`);
    const token = this.state.token();
    // The data stores' programs and folders (lab/stores/), each prepared before anything
    // starts: installed when missing (as root), a fresh database unless --keep-data.
    // (options.statements: the stores count what they spend their time on, for --profile.)
    const stores = await prepareStores(this, deployment, graph, token, { profile: options.statements === true });
    const storeEnv = storesEnv(deployment.stores || [], (name) => ({
      host: this.host,
      port: nodeOf(graph, name).port,
    }));
    // The hub serves the deployment's own processes only: on loopback whatever --host says,
    // and to those that show this deployment's token (hub/server.js).
    const hubToken = crypto.randomBytes(16).toString('hex');
    const address = (name) => `${name === 'hub' ? '127.0.0.1' : this.host}:${nodeOf(graph, name).port}`;
    // The entry's certificate (--tls: lab/tls/certs.js), made fresh in tls/ of the folder.
    const tls = deployment.tls ? prepareTls(this.stateDir, deployment.tls, this.host) : null;
    this.ca = tls?.ca ?? null;
    const contexts = await renderProxies(this, proxies, {
      deployment,
      address,
      options,
      bins,
      tls: tls && { node: graph.entry, cert: tls.cert, key: tls.key, pem: tls.pem, http2: deployment.tls.http2 },
    });

    const urlOf = (name) => `${tls && name === graph.entry ? 'https' : 'http'}://${address(name)}`;
    // The runtime probe (probe/preload.js) in every Node process of the service, sending to
    // the run's collector on this host (lab/probe/), unless --no-probe.
    const probe =
      options.probe === false
        ? { off: 'deployed with --no-probe' }
        : { address: `${this.host}:${ports.probe}`, listen: [{ host: this.host, port: ports.probe }] };
    const state = initialState(this, {
      deployment,
      graph,
      caps,
      cgroups,
      token,
      ports,
      urlOf,
      contexts,
      probe,
      stores,
    });
    // What a replica's start needs besides its node, kept for the replicas added later.
    state.replicaEnv = replicaEnvOf({
      options,
      hubToken,
      hubAddress: graph.hub ? address('hub') : null,
      storeEnv,
      probeAddress: probe.address ?? null,
      probeProfileUs: probe.address ? (options.profile ?? null) : null,
    });
    const replicaStart = replicaStarter(state);
    this.writeState(state);
    // Each capped node's groups, before anything starts: its processes join them first thing.
    const joins = {};
    // (A capped group weighs what its processes would: a replica's workers each one task.)
    for (const [name, cap] of Object.entries(caps))
      joins[name] = createGroup(cgroups, token, name, cap, { tasks: nodeOf(graph, name)?.workers || 1 });
    if (deployment.app && cgroups) {
      for (const node of graph.nodes.filter((n) => n.kind === 'service' && !joins[n.name]))
        joins[node.name] = createGroup(cgroups, token, node.name, {});
    }

    let pm2 = null;
    try {
      this.log(deployment.app ? 'starting pm2' : 'starting pm2 and the black boxes');
      pm2 = await this.step(() => connectPm2(state.pm2Home));
      state.pids.pm2 = Number(fs.readFileSync(path.join(state.pm2Home, 'pm2.pid'), 'utf8'));
      this.record(state, 'pm2', state.pids.pm2);

      const logs = path.join(this.stateDir, 'logs');
      const app = pm2AppOf(state, joins, logs);
      const starters = startersOf(this, { pm2, app, options, hubToken, replicaStart, stores });
      // A proxy of a kind that runs in the foreground: its program under pm2.
      const startProxy = (node, kind) => {
        const { command, args, env = {} } = kind.local(contexts[node.name]);
        return pm2.start(app(node.name, null, { command, args, env, kill_timeout: 3000 }));
      };
      const startNode = async (node) => {
        const host = proxyHostOf(node);
        if (host?.daemon) {
          state.pids[node.name] = await this.step(() =>
            host.start(contexts[node.name], { join: joins[node.name] || null }),
          );
          this.record(state, node.name, state.pids[node.name]);
        } else {
          const kind = node.kind === 'service' && deployment.app ? 'app' : STORES[node.kind] ? 'store' : node.kind;
          await this.step(() => (starters[kind] ? starters[kind](node) : startProxy(node, kindOf(node.kind))));
          await this.recordProcesses(state, pm2);
        }
      };
      await startTiers(this, state, { startNode, pm2, stores, storeEnv, address, urlOf });
      await this.recordProcesses(state, pm2);
      state.ready = true;
      this.writeState(state);
      return state;
    } finally {
      if (pm2) pm2.disconnect();
    }
  }

  // When a node is ready (./local/ready.js): for the tiers and the replicas added later.
  waitHealthy(...args) {
    return waitHealthy(this, ...args);
  }

  waitApp(...args) {
    return waitApp(this, ...args);
  }

  // Records each pm2 app's pid (its cluster workers are its children) and identity.
  async recordProcesses(state, pm2) {
    const list = await this.step(() => pm2.list());
    state.processes = list.map((p) => ({ name: p.name, pid: p.pid, port: nodeOf(state.graph, p.name)?.port }));
    for (const p of state.processes) {
      const id = p.pid ? identify(p.pid) : null;
      if (id) state.owned[p.name] = id;
    }
    this.writeState(state);
  }

  // An app's current pid: pm2's pid file when pm2 restarted it, accepted only when that
  // process carries this folder's token; else the recorded one.
  currentPid(state, name, owned) {
    const pid = readPm2Pid(state.pm2Home, name);
    if (pid && owned.has(pid)) return pid;
    return state.owned?.[name]?.pid;
  }

  // A live view built from /proc alone: it never connects to pm2, so it can never start a
  // daemon. Each recorded process is alive, gone or stale (its pid now someone else's).
  async status() {
    const view = this.inspect();
    const { state } = view;
    if (!state) {
      return view.error || view.unrecorded.length
        ? { up: view.unrecorded.length > 0, stateError: view.error, unrecorded: view.unrecorded, live: [] }
        : null;
    }
    const owned = new Set(findOwned(this.state.token()));
    const rows = view.entries.map((e) => {
      const pid = e.is === 'alive' || e.name in (state.pids || {}) ? e.pid : this.currentPid(state, e.name, owned);
      const alive = e.is === 'alive' || (pid !== e.pid && owned.has(pid));
      const members = alive ? tree(pid) : [];
      return {
        name: e.name,
        pid,
        status: alive ? 'online' : e.is,
        restarted: alive && pid !== e.pid,
        children: alive ? members.length - 1 : undefined,
        memoryMiB: alive ? rssMiB(members) : undefined,
      };
    });
    return { ...state, up: this.isUp(view), stateError: view.error, unrecorded: view.unrecorded, live: rows };
  }

  // Stops everything of this folder; idempotent, and safe while `up` is still starting
  // things: it waits for the step in flight, so a daemon being born is stopped too.
  // helpers: also the helpers of lab commands that died (a later `npm run down` asks for
  // them; a command stopping its own deployment leaves its own helpers to itself).
  // The kind's host of a node the state recorded as a daemon of its own (null: pm2's, or a
  // node the state's graph does not name).
  daemonHostOf(state, name) {
    const node = (state?.graph?.nodes || []).find((n) => n.name === name);
    const host = node ? proxyHostOf(node) : null;
    return host?.daemon ? host : null;
  }

  async down({ helpers = false, deleteData = false } = {}) {
    this.aborting = true;
    // The start step in flight may still be starting pm2's daemon (its connect has a 30 s
    // time-out): waited for past that, so the daemon is not born after the look below (seen
    // once on a busy machine with 15 s: a daemon left running after a Ctrl-C during a deploy).
    if (this.pending) {
      let timer;
      await Promise.race([this.pending.catch(() => {}), new Promise((r) => (timer = setTimeout(r, 45000)))]);
      clearTimeout(timer);
    }
    const view = this.inspect({ helpers });
    const stopped = [];
    const stale = view.entries.filter((e) => e.is === 'stale').map((e) => ({ name: e.name, pid: e.pid }));
    // pm2's daemon first: on SIGTERM it stops its apps gracefully; then the entry (clients
    // stop reaching anything); then the rest.
    const order = ['pm2', view.state?.graph?.entry ?? 'nginx'];
    const alive = view.entries
      .filter((e) => e.is === 'alive')
      .sort((a, b) => rank(order, a.name) - rank(order, b.name));
    for (const e of alive) {
      // Re-checked right before the signal: a pid may have been reused since the look (or
      // pm2's daemon already stopped it with itself).
      stopped.push(e.pid);
      if (check(e) !== 'alive') continue;
      const host = e.name in (view.state.pids || {}) ? this.daemonHostOf(view.state, e.name) : null;
      if (host) await host.stop(e.pid);
      else await stopTree(e.pid, { signal: 'SIGTERM', timeoutMs: 6000 });
    }
    // Whatever carries this folder's token and is still running: a restarted replica, a
    // daemon born after the last record, leftovers of a state.json that was lost.
    const leftovers = findOwned(this.state.token(), { helpers });
    for (const h of DAEMON_HOSTS) {
      for (const pid of h.owned(this.stateDir)) {
        await h.stop(pid);
        leftovers.push(pid);
      }
    }
    if (leftovers.length) await stopPids(leftovers, { timeoutMs: 5000 });
    // And again, for what was born while they stopped (pm2 restarting a replica whose
    // sibling it saw die, in the moment before its daemon went; seen once on a busy machine
    // after a Ctrl-C during a deploy): a few rounds, until nothing of the folder runs.
    for (let round = 0; round < 3; round++) {
      const more = findOwned(this.state.token(), { helpers }).filter((p) => !leftovers.includes(p));
      if (!more.length) break;
      await stopPids(more, { timeoutMs: 5000 });
      leftovers.push(...more);
    }
    // Whatever is still inside the deployment's control groups (a daemon a replica forked
    // away from its tree and the token), then the groups: found by the folder's token, so
    // they go even when state.json is lost.
    const members = this.groupMembers().filter((p) => p !== process.pid);
    if (members.length) {
      await stopPids(members, { timeoutMs: 3000 });
      leftovers.push(...members.filter((p) => !leftovers.includes(p)));
    }
    // A record found stale at the first look whose pid was then stopped as the folder's own
    // (it carried the token) was not left alone: only the rest are said to be.
    const stoppedAll = new Set([...stopped, ...leftovers]);
    stale.splice(0, stale.length, ...stale.filter((e) => !stoppedAll.has(e.pid)));
    const groups = await this.removeGroups();
    const storesRemoved = removeStores(this, { deleteData });
    // The entry's certificate and keys (--tls): made for the deployment, gone with it.
    removeOwnedDir(path.join(this.stateDir, 'tls'));
    this.state.remove();
    return {
      stopped: [...stopped, ...leftovers],
      unrecorded: leftovers.filter((p) => !stopped.includes(p)),
      stale,
      stateError: view.error,
      deployment: view.state?.deployment,
      groups,
      stores: storesRemoved,
    };
  }

  groupMembers() {
    const token = this.state.token();
    const sys = token ? detect() : null;
    return sys ? groupMembers(sys, token) : [];
  }

  async removeGroups() {
    const token = this.state.token();
    const sys = token ? detect() : null;
    if (!sys || !existingGroups(sys, token).length) return { removed: [], failed: [] };
    return removeGroups(sys, token);
  }

  // Lifts every CPU cap of the deployment for a moment (a cache warm-up at full speed) and
  // returns how to put them back. Memory limits stay: what is warmed must fit in them.
  liftCpuCaps(state = this.readState()) {
    const sys = state?.cgroups ? detect() : null;
    const capped = Object.entries(state?.caps || {}).filter(([, c]) => c.cpuPct);
    if (!sys || !capped.length) return { lifted: [], restore: () => {} };
    for (const [name] of capped) setCpu(sys, state.cgroups.token, name, null);
    return {
      lifted: capped.map(([name]) => name),
      restore: () => {
        for (const [name, cap] of capped) setCpu(sys, state.cgroups.token, name, cap);
      },
    };
  }

  // Replicas that come and go while it runs (lab/runtime/local-replicas.js): each call reads
  // the state, changes it and writes it back, one change at a time (lab/elastic/).
  replicaNames(state = this.readState()) {
    return state.graph.nodes.filter((n) => n.kind === 'service').map((n) => n.name);
  }

  elasticWhy(state = this.readState()) {
    return elasticWhy(state);
  }

  addReplica(options = {}) {
    // (This command may not be the one that deployed: its processes carry the folder's token.)
    adoptStateDir(this.stateDir);
    const state = this.readState();
    return addReplica(this.withCa(state), state, options);
  }

  removeReplica(name, options = {}) {
    adoptStateDir(this.stateDir);
    const state = this.readState();
    return removeReplica(this.withCa(state), state, name, options);
  }

  // The CA a --tls deployment's clients trust (this process may not be the one that made it).
  withCa(state) {
    if (!this.ca && state.tls?.ca) this.ca = state.tls.ca;
    return this;
  }

  // What the kernel says about each capped node's groups (lab/runtime/cgroups.js readGroup).
  readCaps(state = this.readState()) {
    if (!state?.cgroups) return {};
    const sys = detect();
    if (!sys) return {};
    const out = {};
    for (const name of Object.keys(state.caps || {})) out[name] = readGroup(sys, state.cgroups.token, name);
    return out;
  }
}

// The entry's certificate in tls/ of the state folder: the lab's own, made fresh, or the user's
// (--tls-cert, --tls-key), copied there; its keys readable by the lab's user only.
function prepareTls(stateDir, tls, host) {
  const dir = path.join(stateDir, 'tls');
  resetDir(dir, 'tls/ in --state-dir');
  fs.chmodSync(dir, 0o700);
  return tls.cert ? userCerts(dir, tls) : makeCerts(dir, { hosts: [host] });
}

const rank = (order, name) => (order.includes(name) ? order.indexOf(name) : order.length);

function rssMiB(pids) {
  let pages = 0;
  for (const pid of pids) {
    try {
      pages += Number(fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    } catch {
      // gone meanwhile
    }
  }
  return Math.round(((pages * 4096) / 2 ** 20) * 10) / 10;
}

module.exports = LocalRuntime;
