'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const StateFile = require('./state-file');
const { assertFree } = require('../ports');
const renderNginxConfig = require('../nginx-config');
const { findNginx, testConfig, startNginx, stopNginx } = require('../nginx');
const connectPm2 = require('./pm2');
const { isAlive, stopTree, tree } = require('../procs');
const { waitFor } = require('../http');

const ROOT = path.join(__dirname, '..', '..');

// The embedded default: the replicas and the black boxes are local processes supervised by
// pm2, nginx is the lab's own process, all of it owned through one run directory
// (`stateDir`) whose state.json records every pid, so `down` can stop exactly what `up`
// started, from this process or another one.
class LocalRuntime {
  constructor({ stateDir, host = '127.0.0.1', log = () => {} }) {
    this.stateDir = path.resolve(stateDir);
    this.host = host;
    this.log = log;
    this.state = new StateFile(this.stateDir);
  }

  readState() {
    return this.state.read();
  }

  writeState(state) {
    this.state.write(state);
  }

  // Whether anything recorded in the state is still running.
  isUp(state = this.readState()) {
    return Boolean(state) && ownedPids(state).some(isAlive);
  }

  // deployment: from lab/deployments; ports: from lab/ports.planPorts;
  // options: { bbox: { key, args }, serviceEnv, statsd: { host, port } | null }
  // Refuses when this run directory already has a deployment up. Call it before taking
  // ownership of a new one: a refused deploy must not stop the one that is up.
  assertNotUp() {
    const existing = this.readState();
    if (this.isUp(existing)) throw labError('LAB_ERR_ALREADY_UP', existing.deployment.label, this.stateDir);
  }

  async up(deployment, ports, options = {}) {
    this.assertNotUp();
    const nginxBin = findNginx();
    await assertFree(
      [
        { port: ports.nginx, role: 'nginx' },
        { port: ports.bbox1, role: 'bbox1' },
        { port: ports.bbox2, role: 'bbox2' },
        ...ports.replicas.map((port, i) => ({ port, role: `replica-${i + 1}` })),
      ],
      this.host,
    );

    // A fresh run directory: nothing of a previous run's pm2 home or nginx prefix survives.
    for (const d of ['pm2', 'nginx', 'logs']) fs.rmSync(path.join(this.stateDir, d), { recursive: true, force: true });
    const nginxDir = path.join(this.stateDir, 'nginx');
    const paths = {
      prefix: nginxDir,
      confFile: path.join(nginxDir, 'nginx.conf'),
      pidFile: path.join(nginxDir, 'nginx.pid'),
      errorLog: path.join(nginxDir, 'error.log'),
      tempDir: path.join(nginxDir, 'temp'),
    };
    fs.mkdirSync(paths.tempDir, { recursive: true });
    fs.mkdirSync(path.join(this.stateDir, 'logs'), { recursive: true });
    const nginxConf = renderNginxConfig({
      deployment,
      host: this.host,
      port: ports.nginx,
      upstreams: ports.replicas.map((p) => `${this.host}:${p}`),
      paths,
    });
    fs.writeFileSync(paths.confFile, nginxConf);
    await testConfig(nginxBin, paths);

    const state = {
      runtime: 'local',
      deployment,
      host: this.host,
      ports,
      url: `http://${this.host}:${ports.nginx}`,
      startedAt: new Date().toISOString(),
      nginxConf: paths.confFile,
      pm2Home: path.join(this.stateDir, 'pm2'),
      pids: {},
      processes: [],
    };
    this.writeState(state);

    try {
      this.log('starting pm2 and the black boxes');
      const pm2 = await connectPm2(state.pm2Home);
      this.pm2 = pm2;
      state.pids.pm2 = Number(fs.readFileSync(path.join(state.pm2Home, 'pm2.pid'), 'utf8'));
      this.writeState(state);

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
      await pm2.start(
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
      );
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
        await pm2.start(app(`replica-${i + 1}`, 'service/index.js', { env }));
      }
      await this.recordProcesses(state);

      this.log('waiting for every replica to be healthy');
      for (const [i, port] of ports.replicas.entries()) {
        await this.waitHealthy(`replica-${i + 1}`, `http://${this.host}:${port}/healthz`, (a) => {
          return new Set(a.map((r) => r.headers['x-worker'])).size >= deployment.workers;
        });
      }
      await this.waitHealthy('bbox1', `http://${this.host}:${ports.bbox1}/`);
      await this.waitHealthy('bbox2', `http://${this.host}:${ports.bbox2}/`, () => true, 30000);

      this.log('starting nginx');
      state.pids.nginx = await startNginx(nginxBin, paths);
      this.writeState(state);
      await this.waitHealthy('nginx', `${state.url}/healthz`, (a) => {
        return new Set(a.map((r) => r.headers['x-instance'])).size >= deployment.replicas;
      });
      await this.recordProcesses(state);
      state.ready = true;
      this.writeState(state);
      return state;
    } catch (err) {
      await this.down().catch(() => {});
      throw err;
    } finally {
      if (this.pm2) this.pm2.disconnect();
      this.pm2 = null;
    }
  }

  async waitHealthy(what, url, until, timeoutMs = 20000) {
    try {
      await waitFor(url, { until, timeoutMs });
    } catch (err) {
      throw labError('LAB_ERR_UNHEALTHY', what, `${url}: ${err.message} (logs in ${path.join(this.stateDir, 'logs')})`);
    }
  }

  // Records each pm2 app's pid and its children (cluster workers) in the state.
  async recordProcesses(state) {
    const list = await this.pm2.list();
    state.processes = list.map((p) => ({
      name: p.name,
      pid: p.pid,
      status: p.pm2_env.status,
      restarts: p.pm2_env.restart_time,
      port: p.name === 'bbox' ? state.ports.bbox1 : state.ports.replicas[Number(p.name.split('-')[1]) - 1],
    }));
    this.writeState(state);
  }

  // Live view: each recorded process with its current pid and whether it is alive.
  async status() {
    const state = this.readState();
    if (!state) return null;
    const rows = [];
    if (state.pids.pm2 && isAlive(state.pids.pm2)) {
      try {
        const pm2 = await connectPm2(state.pm2Home);
        try {
          for (const p of await pm2.list()) {
            rows.push({
              name: p.name,
              pid: p.pid,
              status: p.pm2_env.status,
              restarts: p.pm2_env.restart_time,
              children: p.pid ? tree(p.pid).length - 1 : 0,
              cpu: p.monit.cpu,
              memoryMiB: Math.round((p.monit.memory / 2 ** 20) * 10) / 10,
            });
          }
        } finally {
          pm2.disconnect();
        }
      } catch {
        // pm2 not answering: fall back to the recorded pids below
      }
    }
    if (rows.length === 0) {
      for (const p of state.processes)
        rows.push({ name: p.name, pid: p.pid, status: isAlive(p.pid) ? 'alive' : 'gone' });
    }
    if (state.pids.nginx)
      rows.push({ name: 'nginx', pid: state.pids.nginx, status: isAlive(state.pids.nginx) ? 'online' : 'gone' });
    return { ...state, up: this.isUp(state), live: rows };
  }

  // Stops everything the state records; idempotent. Returns the pids that were stopped.
  async down() {
    const state = this.readState();
    if (!state) return { stopped: [] };
    const before = ownedPids(state).filter(isAlive);
    if (state.pids.nginx) await stopNginx(state.pids.nginx);
    if (state.pids.pm2 && isAlive(state.pids.pm2)) {
      try {
        const pm2 = await connectPm2(state.pm2Home);
        await pm2.killDaemon();
        pm2.disconnect();
      } catch {
        // fall through to the pids
      }
    }
    // Whatever pm2 did not stop (or if pm2 was gone): the recorded pids and their trees.
    for (const pid of [state.pids.pm2, ...state.processes.map((p) => p.pid)]) {
      if (pid && isAlive(pid)) await stopTree(pid, { signal: 'SIGTERM', timeoutMs: 5000 });
    }
    this.state.remove();
    return { stopped: before, deployment: state.deployment };
  }
}

function ownedPids(state) {
  return [state.pids.pm2, state.pids.nginx, ...(state.processes || []).map((p) => p.pid)].filter(Boolean);
}

module.exports = LocalRuntime;
