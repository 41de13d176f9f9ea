'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { EngineRuntime, engineName } = require('./engine-runtime');
const { assertFree } = require('../topology/ports');
const { plannedGraph } = require('../topology/graph');
const { composeProject, containerConfig, configNodes } = require('../topology/compose-file');
const { entryProbe, gatewayHint } = require('./readiness');
const { listenersOn, loopbackOnly } = require('./loopback');
const { INNER } = require('../topology/container-parts');
const { installApp } = require('../app/install');
const { writeAppContext, INSIDE, PROBE } = require('../app/image');
const { IN_SERVICE_IMAGE } = require('../probe/env');
const { dump } = require('../topology/compose-write');
const { parents } = require('../ownership/procs');
const { waitFor } = require('../http');
const { adoptStateDir } = require('../ownership/adopt');
const { resetDir } = require('../ownership/dirs');
const { addReplica, removeReplica, elasticWhy } = require('./compose-replicas');
const { run, tail, engineSilent, ENGINE_CHECK_MS } = require('./engine-run');

const { ROOT } = require('../paths');

const APP_PRIMARY = path.join(ROOT, 'lab', 'app', 'primary.js');

// The same deployments as LocalRuntime, as containers on the engine DOCKER_HOST names
// (the user's own, or the private one the container smoke test starts). nginx is
// published on host:ports.entry; the rest is only on the project's network. The compose
// file is rendered into the run directory from the same table as compose/, so custom
// --replicas/--workers work too.
class ComposeRuntime extends EngineRuntime {
  constructor(options) {
    super(options, 'compose');
  }

  compose(state, args, opts = {}) {
    return run('docker-compose', ['-p', state.project, '-f', state.composeFile, ...args], {
      env: this.composeEnv(state),
      ...opts,
    });
  }

  composeEnv(state) {
    return {
      ...this.env,
      LAB_PORT: String(state.ports.entry),
      LAB_BIND: state.host,
      LAB_KEY: state.key ?? '',
      LAB_HUB_TOKEN: state.hubToken ?? '',
      // The runtime probe (lab/probe/, probe/preload.js): preloaded, and where it sends.
      LAB_PROBE_OPTIONS: state.probe?.options ?? '',
      LAB_PROBE_ADDRESS: state.probe?.address ?? '',
      LAB_PROBE_PROFILE: state.probe?.profileUs ? String(state.probe.profileUs) : '',
      ...(state.heavyMs ? { LAB_HEAVY_MS: state.heavyMs } : {}),
    };
  }

  // options: { graph (the plan's, its nodes without host ports), bbox: { key }, serviceEnv } as
  // for LocalRuntime.
  async up(deployment, ports, options = {}) {
    this.assertNotUp();
    await run('docker-compose', ['version', '--short'], { env: this.env, timeoutMs: ENGINE_CHECK_MS });
    const engine = await run('docker', ['version', '--format', '{{.Server.Version}}'], {
      env: this.env,
      timeoutMs: ENGINE_CHECK_MS,
    });
    if (engine.code !== 0) throw engineSilent(engine, this.env, 'docker version');
    await assertFree([{ port: ports.entry, role: 'the entry (published)' }], this.host);

    adoptStateDir(this.stateDir);
    resetDir(this.dir, 'compose/ in --state-dir');
    const graph = plannedGraph(options);
    // One config per proxy node of the graph (lab/kinds/): the entry's, each caching edge's.
    const confs = {};
    for (const { node, file } of configNodes(deployment)) {
      confs[node] = path.join(this.dir, file);
      fs.writeFileSync(confs[node], containerConfig(deployment, { node }));
    }
    // Your service (--app): its dependencies installed here, then its build context.
    let appContext = null;
    if (deployment.app) {
      await installApp(deployment.app, this.log);
      appContext = writeAppContext(deployment.app, path.join(this.dir, 'app'), APP_PRIMARY);
    }
    const composeFile = path.join(this.dir, 'docker-compose.yml');
    fs.writeFileSync(
      composeFile,
      dump(composeProject(deployment, { root: ROOT, confs, caps: options.caps || {}, appContext })),
    );

    const probe = await this.probeState(
      {
        probe: options.probe,
        port: ports.probe,
        preload: deployment.app ? `${INSIDE}/${PROBE}` : IN_SERVICE_IMAGE,
        profileUs: options.profile,
      },
      (args) => run('docker', args, { env: this.env, timeoutMs: ENGINE_CHECK_MS }),
    );
    const state = {
      runtime: 'compose',
      probe,
      project: projectName(this.stateDir, deployment),
      composeFile,
      deployment,
      graph,
      caps: options.caps || {},
      host: this.host,
      ports: { entry: ports.entry },
      key: options.bbox?.key ?? '',
      // The deployment's own hub token (hub/server.js), passed to the hub and the replicas.
      hubToken: crypto.randomBytes(16).toString('hex'),
      heavyMs: options.serviceEnv?.HEAVY_MS,
      url: `http://${this.host}:${ports.entry}`,
      startedAt: new Date().toISOString(),
      entryConf: graph.entry ? confs[graph.entry] || null : null,
      // What the project is rendered from again when replicas come and go
      // (lab/runtime/compose-replicas.js): every proxy's config, your service's build context.
      confs,
      appContext,
      replicaSeq: deployment.replicas + 1,
      pids: {},
      processes: [],
    };
    // Written before anything starts, so `down` (or Ctrl-C) can remove a half-made project.
    this.writeState(state);
    try {
      this.log(`building the images and starting ${state.graph.nodes.length} containers (project ${state.project})`);
      this.upRun = this.compose(state, ['up', '-d', '--build', '--remove-orphans']);
      const r = await this.upRun;
      this.upRun = null;
      if (r.code !== 0) {
        // Your service's set-up (--app-setup) that failed is yours to fix: its own output.
        if (deployment.appSetup && /setup/.test(r.out) && /didn't complete successfully|exited with code/.test(r.out)) {
          const logs = await this.compose(state, ['logs', '--no-color', '--tail', '20', 'setup']);
          throw labError('LAB_ERR_APP_SETUP', deployment.appSetup, `its last lines:\n${tail(logs.out, 12)}`);
        }
        throw labError('LAB_ERR_PROCESS', 'docker-compose up', tail(r.out));
      }
      this.log(`waiting for every replica to answer through the ${graph.entry}`);
      // (One client reaches a single replica through an L4 balancer hashing its address.)
      const ready = entryProbe(deployment);
      // (Your service answering the entry's 502: every 3 s, whether it listens on 127.0.0.1
      // alone in its containers, which no wait would change.)
      const check = deployment.app
        ? { everyMs: 3000, fn: (last) => (/^HTTP 50[24]$/.test(last) ? this.loopbackOnly(state) : null) }
        : null;
      try {
        await waitFor((i) => ready.url(state.url, i), {
          timeoutMs: 60000,
          until: ready.until,
          accept: ready.accept,
          check,
        });
      } catch (err) {
        const logs = await this.compose(state, ['logs', '--tail', '20']);
        throw labError(
          'LAB_ERR_UNHEALTHY',
          'the compose deployment',
          `${err.message}${err.why ? ` (${err.why})` : ''}${gatewayHint(err, deployment.app)}\n${tail(logs.out, 30)}`,
        );
      }
      await this.recordProcesses(state);
      state.ready = true;
      this.writeState(state);
      return state;
    } catch (err) {
      await this.down().catch(() => {});
      throw err;
    }
  }

  // Why the entry reaches no replica, when every replica's service listens on 127.0.0.1 alone
  // in its container (./loopback.js), else null.
  async loopbackOnly(state) {
    const port = INNER.service;
    const ids = await this.compose(state, ['ps', '-q']);
    let replicas = 0;
    for (const id of ids.out.split('\n').filter((l) => /^[0-9a-f]{12,}$/.test(l.trim()))) {
      const name = await run(
        'docker',
        ['inspect', '-f', '{{index .Config.Labels "com.docker.compose.service"}}', id.trim()],
        {
          env: this.env,
        },
      );
      if (!/^replica-/.test(name.out.trim())) continue;
      const tcp = await run('docker', ['exec', id.trim(), 'cat', '/proc/net/tcp', '/proc/net/tcp6'], { env: this.env });
      if (!loopbackOnly(listenersOn(tcp.out, port))) return null;
      replicas++;
    }
    return replicas ? `in its ${replicas} replica container(s), your service listens on 127.0.0.1:${port} alone` : null;
  }

  // Each container's main process as a host pid, so the lab's /proc sampler follows the
  // containers like the local processes (this works when the engine runs on this host).
  async recordProcesses(state) {
    const ids = await this.compose(state, ['ps', '-q']);
    const pmap = parents();
    const main = (initPid) => [...pmap].find(([, pp]) => pp === initPid)?.[0] ?? initPid;
    state.processes = [];
    for (const id of ids.out.split('\n').filter((l) => /^[0-9a-f]{12,}$/.test(l.trim()))) {
      const format = '{{index .Config.Labels "com.docker.compose.service"}} {{.State.Pid}}';
      const inspect = await run('docker', ['inspect', '-f', format, id.trim()], { env: this.env });
      const [name, pid] = inspect.out.trim().split(' ');
      if (!name || !Number(pid)) continue;
      if (name === state.graph.entry) state.pids[name] = main(Number(pid));
      else state.processes.push({ name, pid: main(Number(pid)), container: id.trim().slice(0, 12) });
    }
    this.writeState(state);
  }

  // Replicas that come and go while it runs (lab/runtime/compose-replicas.js).
  replicaNames(state = this.readState()) {
    return state.graph.nodes.filter((n) => n.kind === 'service').map((n) => n.name);
  }

  elasticWhy(state = this.readState()) {
    return elasticWhy(state);
  }

  addReplica(options = {}) {
    const state = this.readState();
    return addReplica(this, state, options);
  }

  removeReplica(name, options = {}) {
    const state = this.readState();
    return removeReplica(this, state, name, options);
  }

  async status() {
    const { state } = this.state.inspect();
    if (!state) return null;
    const r = await this.compose(state, ['ps']).catch((err) => ({ code: 1, out: err.message }));
    const live = state.graph.nodes.map(({ name }) => {
      const line = r.out.split('\n').find((l) => l.includes(`_${name}_`)) || '';
      const status = /Up \(healthy\)/.test(line) ? 'healthy' : /\bUp\b/.test(line) ? 'up' : line ? 'exited' : 'gone';
      const p = state.processes.find((x) => x.name === name);
      return { name, pid: name === state.graph.entry ? state.pids[name] : p?.pid, status };
    });
    return { ...state, up: live.some((x) => x.status !== 'gone'), live };
  }

  // Removes the project's containers and network; idempotent.
  async down() {
    const { state } = this.state.inspect();
    if (!state) return { stopped: [] };
    // Interrupted while `up` runs: stop it first, or it goes on creating containers after
    // the `down` below has looked (seen: one container left behind).
    if (this.upRun) {
      this.upRun.child.kill('SIGTERM');
      await this.upRun.catch(() => {});
      this.upRun = null;
    }
    for (let attempt = 0; ; attempt++) {
      const r = await this.compose(state, ['down', '--remove-orphans', '-t', '10']);
      if (r.code !== 0) throw labError('LAB_ERR_PROCESS', 'docker-compose down', tail(r.out));
      // A create the engine was still doing when `up` stopped lands after the first pass.
      const left = await run('docker', ['ps', '-aq', '--filter', `label=com.docker.compose.project=${state.project}`], {
        env: this.env,
      });
      if (left.code !== 0 || !left.out.trim() || attempt >= 2) break;
      await new Promise((r2) => setTimeout(r2, 1000));
    }
    this.state.remove();
    return { stopped: state.processes.map((p) => p.pid), deployment: state.deployment };
  }
}

// One compose project per state folder and deployment.
const projectName = (stateDir, deployment) => engineName(stateDir, `-${deployment.name}`);

module.exports = ComposeRuntime;
