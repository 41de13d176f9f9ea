'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { EngineRuntime, engineName } = require('./engine-runtime');
const { run, tail, engineSilent, ENGINE_CHECK_MS } = require('./compose');
const { assertFree } = require('../topology/ports');
const { buildGraph } = require('../topology/graph');
const { composeProject, stackProject, containerConfig, configNodes } = require('../topology/compose-file');
const { kindOf } = require('../kinds');
const { dump } = require('../topology/compose-write');
const { waitFor } = require('../http');
const { adoptStateDir } = require('../ownership/adopt');
const { resetDir } = require('../ownership/dirs');

const { ROOT } = require('../paths');

// The same graph as a stack on the swarm DOCKER_HOST names (a single node made with `docker
// swarm init`, or a real cluster whose nodes reach LAB_REGISTRY). The images are built on
// the manager from the compose file of the same deployment; nginx is the entry, published
// on ports.nginx in host mode (on the node that runs it: a single node here), and it finds
// the service's tasks by DNS at request time, so `scale` needs no reload.
class SwarmRuntime extends EngineRuntime {
  constructor(options) {
    super(options, 'swarm');
  }

  docker(args, opts = {}) {
    return run('docker', args, { env: { ...this.env, ...(opts.env || {}) }, timeoutMs: opts.timeoutMs });
  }

  // The engine answers, and is a swarm manager: otherwise one message saying what to do.
  async assertManager() {
    const r = await this.docker(['info', '--format', '{{.Swarm.LocalNodeState}} {{.Swarm.ControlAvailable}}'], {
      timeoutMs: ENGINE_CHECK_MS,
    });
    if (r.code !== 0) throw engineSilent(r, this.env, 'docker info');
    const [nodeState, manager] = r.out.trim().split(/\s+/);
    if (nodeState !== 'active' || manager !== 'true') {
      throw labError(
        'LAB_ERR_ENGINE',
        `the engine is not a swarm manager (swarm: ${nodeState || 'unknown'}); make this one a single-node swarm with \`docker swarm init --advertise-addr 127.0.0.1\`, or point DOCKER_HOST at a manager`,
      );
    }
  }

  // The routing mesh is IPVS in the kernel of every node. When the engine is this machine's
  // (a unix socket) and its kernel has none, the mesh's port would only refuse: said now.
  assertMesh() {
    const hostUrl = this.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
    if (hostUrl.startsWith('unix://') && !fs.existsSync('/proc/sys/net/ipv4/vs')) {
      throw labError('LAB_ERR_NO_IPVS');
    }
  }

  // options: { bbox: { key }, caps } as for the other runtimes (caps per role in a stack).
  async up(deployment, ports, options = {}) {
    this.assertNotUp();
    if (deployment.edges)
      throw labError('LAB_ERR_USAGE', 'caching edges run on the local and compose engines, for now');
    await this.assertManager();
    if (kindOf(deployment.balancer.kind).needsIpvs) this.assertMesh();
    await assertFree([{ port: ports.nginx, role: 'nginx (published by the swarm)' }], this.host);

    adoptStateDir(this.stateDir);
    resetDir(this.dir, 'swarm/ in --state-dir');
    // The entry's config (lab/kinds/), finding the tasks through swarm's DNS.
    const graph = buildGraph(deployment);
    const confs = {};
    for (const { node, file } of configNodes(deployment)) {
      confs[node] = path.join(this.dir, file);
      fs.writeFileSync(confs[node], containerConfig(deployment, { node, stack: true }));
    }
    // The images, from the compose project of the same deployment (swarm does not build).
    // (The entry's kind does not change the images: built as the nginx row.)
    const composeFile = path.join(this.dir, 'build.yml');
    const asBuilt = { ...deployment, balancer: { ...deployment.balancer, kind: 'nginx' } };
    const buildConfs = { nginx: path.join(this.dir, 'build-nginx.conf') };
    fs.writeFileSync(buildConfs.nginx, containerConfig(asBuilt, { stack: true }));
    fs.writeFileSync(composeFile, dump(composeProject(asBuilt, { root: ROOT, confs: buildConfs })));
    const stackFile = path.join(this.dir, 'stack.yml');
    const stack = stackProject(deployment, { confs, caps: roleCaps(options.caps || {}), publish: ports.nginx });
    // The monitoring stack is the compose engine's; a swarm run uses the lab's own StatsD.
    delete stack.services.graphite;
    stack.services.service.environment.STATSD_HOST = 'statsd.invalid';
    fs.writeFileSync(stackFile, dump(stack));

    const hubToken = crypto.randomBytes(16).toString('hex');
    const state = {
      runtime: 'swarm',
      stack: stackName(this.stateDir),
      stackFile,
      deployment,
      graph,
      caps: options.caps || {},
      host: this.host,
      ports: { nginx: ports.nginx },
      key: options.bbox?.key ?? '',
      url: `http://${this.host}:${ports.nginx}`,
      startedAt: new Date().toISOString(),
      entryConf: graph.entry ? confs[graph.entry] || null : null,
      pids: {},
      processes: [],
    };
    // Written before anything is made, so `down` (or Ctrl-C) can remove a half-made stack.
    this.writeState(state);
    try {
      this.log('building the images');
      const build = await run('docker-compose', ['-p', `${state.stack}-build`, '-f', composeFile, 'build'], {
        env: this.env,
      });
      if (build.code !== 0) throw labError('LAB_ERR_PROCESS', 'building the images', tail(build.out));
      this.log(`deploying the stack ${state.stack}`);
      const d = await this.docker(['stack', 'deploy', '-c', stackFile, state.stack], {
        env: { LAB_KEY: state.key, LAB_HUB_TOKEN: hubToken },
      });
      if (d.code !== 0) throw labError('LAB_ERR_PROCESS', 'docker stack deploy', tail(d.out));
      this.log(`waiting for every task to answer through the ${graph.entry}`);
      await this.waitServing(state, deployment.replicas);
      await this.recordProcesses(state);
      state.ready = true;
      this.writeState(state);
      return state;
    } catch (err) {
      await this.down().catch(() => {});
      throw err;
    }
  }

  // Until `replicas` distinct tasks answer through the entry (each names itself replica-SLOT).
  async waitServing(state, replicas, timeoutMs = 120000) {
    try {
      await waitFor((i) => `${state.url}/healthz?probe=${i}`, {
        timeoutMs,
        until: (answers) => new Set(answers.slice(-4 * replicas).map((a) => a.headers['x-instance'])).size >= replicas,
      });
    } catch (err) {
      const ps = await this.docker([
        'stack',
        'ps',
        '--no-trunc',
        '--format',
        '{{.Name}} {{.CurrentState}} {{.Error}}',
        state.stack,
      ]);
      throw labError('LAB_ERR_UNHEALTHY', `the stack ${state.stack}`, `${err.message}\n${tail(ps.out, 20)}`);
    }
  }

  // Every running task's main process as a host pid, named like the graph's nodes
  // (replica-SLOT, bbox, hub, nginx), so the lab's sampler follows them.
  async recordProcesses(state) {
    const ids = await this.docker(['ps', '-q', '--filter', `label=com.docker.stack.namespace=${state.stack}`]);
    state.processes = [];
    state.pids = {};
    const format =
      '{{index .Config.Labels "com.docker.swarm.service.name"}} {{index .Config.Labels "com.docker.swarm.task.name"}} {{.State.Pid}}';
    for (const id of ids.out.split('\n').filter((l) => /^[0-9a-f]{12,}$/.test(l.trim()))) {
      const inspect = await this.docker(['inspect', '-f', format, id.trim()]);
      const [service, task, pid] = inspect.out.trim().split(' ');
      if (!service || !Number(pid)) continue;
      const role = service.slice(state.stack.length + 1);
      const slot = /\.(\d+)\./.exec(task || '')?.[1];
      const name = role === 'service' ? `replica-${slot}` : role;
      // No init in a stack's tasks: the container's first process is the node (the service's
      // primary, nginx's master), whose children (cluster workers) the sampler adds up.
      if (name === 'nginx') state.pids.nginx = Number(pid);
      else state.processes.push({ name, pid: Number(pid), container: id.trim().slice(0, 12) });
    }
    state.processes.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    this.writeState(state);
  }

  // Sets the service's task count and waits until that many answer through nginx.
  async scale(replicas) {
    const { state } = this.state.inspect();
    if (!state) throw labError('LAB_ERR_NOT_UP');
    const t0 = Date.now();
    const r = await this.docker(['service', 'scale', '--detach', `${state.stack}_service=${replicas}`]);
    if (r.code !== 0) throw labError('LAB_ERR_PROCESS', 'docker service scale', tail(r.out));
    await this.waitServing(state, replicas);
    // Going down: the removed tasks' addresses may still be cached (resolver valid=2s).
    state.deployment = { ...state.deployment, replicas };
    state.graph = buildGraph(state.deployment);
    await this.recordProcesses(state);
    return { state, seconds: (Date.now() - t0) / 1000 };
  }

  async status() {
    const { state } = this.state.inspect();
    if (!state) return null;
    const r = await this.docker([
      'stack',
      'ps',
      '--filter',
      'desired-state=running',
      '--format',
      '{{.Name}} {{.CurrentState}}',
      state.stack,
    ]);
    const lines = r.code === 0 ? r.out.split('\n') : [];
    const names = [...state.processes.map((p) => p.name), ...(state.graph.entry === 'nginx' ? ['nginx'] : [])];
    const live = names.map((name) => {
      const role = /^replica-(\d+)$/.exec(name);
      const task = role ? `${state.stack}_service.${role[1]} ` : `${state.stack}_${name}.1 `;
      const line = lines.find((l) => l.startsWith(task)) || '';
      const p = state.processes.find((x) => x.name === name);
      return {
        name,
        pid: name === 'nginx' ? state.pids.nginx : p?.pid,
        status: /^\S+ Running/.test(line) ? 'up' : line ? 'starting' : 'gone',
      };
    });
    return { ...state, up: live.some((x) => x.status !== 'gone'), live };
  }

  // Removes the stack (services, its network and its configs) and waits until its
  // containers are gone; idempotent.
  async down() {
    const { state } = this.state.inspect();
    if (!state) return { stopped: [] };
    const rm = await this.docker(['stack', 'rm', state.stack]);
    if (rm.code !== 0 && !/Nothing found in stack/.test(rm.out)) {
      throw labError('LAB_ERR_PROCESS', 'docker stack rm', tail(rm.out));
    }
    const deadline = Date.now() + 60000;
    for (;;) {
      const left = await this.docker(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${state.stack}`]);
      const nets = await this.docker([
        'network',
        'ls',
        '-q',
        '--filter',
        `label=com.docker.stack.namespace=${state.stack}`,
      ]);
      if (!left.out.trim() && !nets.out.trim()) break;
      if (Date.now() > deadline) {
        throw labError(
          'LAB_ERR_PROCESS',
          'docker stack rm',
          `the stack's containers or network are still there after 60 s`,
        );
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
    this.state.remove();
    return { stopped: state.processes.map((p) => p.pid), deployment: state.deployment };
  }
}

// A stack's caps are per role: a node's own name (replica-2) has no task of its own.
function roleCaps(caps) {
  const out = {};
  for (const [node, cap] of Object.entries(caps)) out[node.replace(/-\d+$/, '')] = cap;
  return out;
}

// One stack per state folder (stack names are short: the folder's last 20 characters).
const stackName = (stateDir) => engineName(stateDir, '', 20);

module.exports = SwarmRuntime;
