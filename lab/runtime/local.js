'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const StateFile = require('./state-file');
const { assertFree } = require('../ports');
const renderNginxConfig = require('../nginx-config');
const { findNginx, testConfig, startNginx, stopNginx, ownedNginx, nginxPaths } = require('../nginx');
const connectPm2 = require('./pm2');
const { stopTree, tree, stopPids } = require('../procs');
const { identify, check } = require('../ownership/identity');
const { findOwned } = require('../ownership/scan');
const { adoptStateDir } = require('../ownership/adopt');
const { resetDir } = require('../ownership/dirs');
const { waitFor } = require('../http');
const { reachesAllFromOneClient } = require('../deployments');

const ROOT = path.join(__dirname, '..', '..');

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
    const nginx = ownedNginx(nginxPaths(this.stateDir));
    if (nginx) found.push(...tree(nginx));
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
  // is asked for, no further step starts and the one in flight does not go on.
  async step(promise) {
    if (this.aborting) throw labError('LAB_ERR_INTERRUPTED', 'a stop request');
    this.pending = Promise.resolve(promise);
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

  // deployment: from lab/deployments; ports: from lab/ports.planPorts;
  // options: { bbox: { key, args }, serviceEnv, statsd: { host, port } | null }
  async up(deployment, ports, options = {}) {
    this.assertNotUp();
    // The entry is nginx (L7 or L4), or the lab's own balancer, a pm2 app like the replicas.
    // With no balancer (`none`) the clients go straight to the replicas.
    const { kind } = deployment.balancer;
    const viaNginx = kind === 'nginx' || kind === 'nginx-l4';
    const entry = kind !== 'none';
    const nginxBin = viaNginx ? findNginx() : null;
    await assertFree(
      [
        ...(entry ? [{ port: ports.nginx, role: viaNginx ? 'nginx' : 'balancer' }] : []),
        { port: ports.bbox1, role: 'bbox1' },
        { port: ports.bbox2, role: 'bbox2' },
        ...ports.replicas.map((port, i) => ({ port, role: `replica-${i + 1}` })),
      ],
      this.host,
    );

    adoptStateDir(this.stateDir);
    // Fresh folders (each the lab's own, see lab/ownership/dirs.js): nothing of a previous
    // deployment's pm2 home or nginx prefix survives.
    for (const d of ['pm2', 'nginx', 'logs', 'home']) resetDir(path.join(this.stateDir, d), `${d}/ in --state-dir`);
    const paths = nginxPaths(this.stateDir);
    const upstreams = ports.replicas.map((p) => `${this.host}:${p}`);
    if (viaNginx) {
      fs.mkdirSync(paths.tempDir, { recursive: true });
      fs.writeFileSync(
        paths.confFile,
        renderNginxConfig({ deployment, host: this.host, port: ports.nginx, upstreams, paths }),
      );
      await testConfig(nginxBin, paths);
    }

    const state = {
      runtime: 'local',
      deployment,
      host: this.host,
      ports,
      url: entry ? `http://${this.host}:${ports.nginx}` : `http://${this.host}:${ports.replicas[0]}`,
      // Every address a client may use: the entry, or each replica when there is none.
      urls: entry ? [`http://${this.host}:${ports.nginx}`] : ports.replicas.map((p) => `http://${this.host}:${p}`),
      startedAt: new Date().toISOString(),
      nginxConf: viaNginx ? paths.confFile : null,
      pm2Home: path.join(this.stateDir, 'pm2'),
      pids: {},
      processes: [],
      // name -> identity of every process the lab started here.
      owned: {},
    };
    this.writeState(state);

    let pm2 = null;
    try {
      this.log('starting pm2 and the black boxes');
      pm2 = await this.step(connectPm2(state.pm2Home));
      state.pids.pm2 = Number(fs.readFileSync(path.join(state.pm2Home, 'pm2.pid'), 'utf8'));
      this.record(state, 'pm2', state.pids.pm2);

      const logs = path.join(this.stateDir, 'logs');
      const app = (name, script, extra) => ({
        name,
        script: path.join(ROOT, script),
        interpreter: process.execPath,
        cwd: ROOT,
        autorestart: true,
        max_restarts: 50,
        restart_delay: 200,
        // The service drains for at most SHUTDOWN_TIMEOUT_MS, below this.
        kill_timeout: 5000,
        out_file: path.join(logs, `${name}.out.log`),
        error_file: path.join(logs, `${name}.err.log`),
        pid_file: path.join(state.pm2Home, `${name}.pid`),
        ...extra,
      });
      await this.step(
        pm2.start(
          app('bbox', 'bbox/index.js', {
            args: [
              '--port',
              String(ports.bbox1),
              '--host',
              this.host,
              '--key',
              options.bbox?.key ?? '',
              ...(options.bbox?.args || []),
            ],
          }),
        ),
      );
      await this.recordProcesses(state, pm2);
      for (const [i, port] of ports.replicas.entries()) {
        const env = {
          HOST: this.host,
          PORT: String(port),
          WORKERS: String(deployment.workers),
          INSTANCE: `replica-${i + 1}`,
          BBOX1_URL: `http://${this.host}:${ports.bbox1}`,
          BBOX2_URL: `http://${this.host}:${ports.bbox2}`,
          SHUTDOWN_TIMEOUT_MS: '3000',
          ...(options.statsd ? { STATSD_HOST: options.statsd.host, STATSD_PORT: String(options.statsd.port) } : {}),
          STATSD_PREFIX: 'lab.service',
          ...(options.serviceEnv || {}),
        };
        await this.step(pm2.start(app(`replica-${i + 1}`, 'service/index.js', { env })));
        await this.recordProcesses(state, pm2);
      }

      this.log('waiting for every replica to be healthy');
      for (const [i, port] of ports.replicas.entries()) {
        await this.waitHealthy(`replica-${i + 1}`, `http://${this.host}:${port}/healthz`, (a) => {
          return new Set(a.map((r) => r.headers['x-worker'])).size >= deployment.workers;
        });
      }
      await this.waitHealthy('bbox1', `http://${this.host}:${ports.bbox1}/`);
      await this.waitHealthy('bbox2', `http://${this.host}:${ports.bbox2}/`, () => true, 30000);

      if (viaNginx) {
        this.log('starting nginx');
        state.pids.nginx = await this.step(startNginx(nginxBin, paths));
        this.record(state, 'nginx', state.pids.nginx);
      } else if (entry) {
        this.log("starting the lab's own balancer");
        const env = { HOST: this.host, PORT: String(ports.nginx), UPSTREAMS: upstreams.join(',') };
        await this.step(pm2.start(app('balancer', 'balancer/index.js', { env })));
        await this.recordProcesses(state, pm2);
      }
      // A URI of its own per probe: with `hash`, one URI would only ever reach one replica.
      const all = reachesAllFromOneClient(deployment.balancer) ? deployment.replicas : 1;
      if (entry) {
        await this.waitHealthy(
          viaNginx ? 'nginx' : 'balancer',
          (i) => `${state.url}/healthz?probe=${i}`,
          (a) => new Set(a.map((r) => r.headers['x-instance'])).size >= all,
        );
      }
      await this.recordProcesses(state, pm2);
      state.ready = true;
      this.writeState(state);
      return state;
    } catch (err) {
      if (pm2) pm2.disconnect();
      pm2 = null;
      if (!this.aborting) await this.down().catch(() => {});
      throw err;
    } finally {
      if (pm2) pm2.disconnect();
    }
  }

  async waitHealthy(what, url, until, timeoutMs = 20000) {
    try {
      await this.step(waitFor(url, { until, timeoutMs }));
    } catch (err) {
      if (err.code === 'LAB_ERR_INTERRUPTED') throw err;
      const shown = typeof url === 'function' ? url('N') : url;
      throw labError(
        'LAB_ERR_UNHEALTHY',
        what,
        `${shown}: ${err.message} (logs in ${path.join(this.stateDir, 'logs')})`,
      );
    }
  }

  // Records each pm2 app's pid (its cluster workers are its children) and identity.
  async recordProcesses(state, pm2) {
    const list = await this.step(pm2.list());
    state.processes = list.map((p) => ({
      name: p.name,
      pid: p.pid,
      port:
        p.name === 'bbox'
          ? state.ports.bbox1
          : p.name === 'balancer'
            ? state.ports.nginx
            : state.ports.replicas[Number(p.name.split('-')[1]) - 1],
    }));
    for (const p of state.processes) {
      const id = p.pid ? identify(p.pid) : null;
      if (id) state.owned[p.name] = id;
    }
    this.writeState(state);
  }

  // An app's current pid: pm2's pid file when pm2 restarted it, accepted only when that
  // process carries this folder's token; else the recorded one.
  currentPid(state, name, owned) {
    try {
      const pid = Number(fs.readFileSync(path.join(state.pm2Home, `${name}.pid`), 'utf8'));
      if (owned.has(pid)) return pid;
    } catch {
      // no pid file
    }
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
      const pid =
        e.is === 'alive' || e.name === 'pm2' || e.name === 'nginx' ? e.pid : this.currentPid(state, e.name, owned);
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
  async down({ helpers = false } = {}) {
    this.aborting = true;
    if (this.pending) await Promise.race([this.pending.catch(() => {}), new Promise((r) => setTimeout(r, 15000))]);
    const view = this.inspect({ helpers });
    const stopped = [];
    const stale = view.entries.filter((e) => e.is === 'stale').map((e) => ({ name: e.name, pid: e.pid }));
    // pm2's daemon first: on SIGTERM it stops its apps gracefully; then nginx; then the rest.
    const order = ['pm2', 'nginx'];
    const alive = view.entries
      .filter((e) => e.is === 'alive')
      .sort((a, b) => rank(order, a.name) - rank(order, b.name));
    for (const e of alive) {
      // Re-checked right before the signal: a pid may have been reused since the look (or
      // pm2's daemon already stopped it with itself).
      stopped.push(e.pid);
      if (check(e) !== 'alive') continue;
      if (e.name === 'nginx') await stopNginx(e.pid);
      else await stopTree(e.pid, { signal: 'SIGTERM', timeoutMs: 6000 });
    }
    // Whatever carries this folder's token and is still running: a restarted replica, a
    // daemon born after the last record, leftovers of a state.json that was lost.
    const leftovers = findOwned(this.state.token(), { helpers });
    const nginx = ownedNginx(nginxPaths(this.stateDir));
    if (nginx) {
      await stopNginx(nginx);
      leftovers.push(nginx);
    }
    if (leftovers.length) await stopPids(leftovers, { timeoutMs: 5000 });
    this.state.remove();
    return {
      stopped: [...stopped, ...leftovers],
      unrecorded: leftovers.filter((p) => !stopped.includes(p)),
      stale,
      stateError: view.error,
      deployment: view.state?.deployment,
    };
  }
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
