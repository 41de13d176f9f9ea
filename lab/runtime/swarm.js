'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { EngineRuntime, engineName } = require('./engine-runtime');
const { run, tail, engineSilent, ENGINE_CHECK_MS } = require('./engine-run');
const { assertFree, remoteTcpFree, addressTowards } = require('../topology/ports');
const { buildGraph, plannedGraph } = require('../topology/graph');
const { composeProject, containerConfig, configNodes } = require('../topology/compose-file');
const { stackProject } = require('../topology/stack-file');
const { kindOf } = require('../kinds');
const { dump } = require('../topology/compose-write');
const { waitFor } = require('../http');
const { adoptStateDir } = require('../ownership/adopt');
const { resetDir } = require('../ownership/dirs');
const { entryProbe, gatewayHint } = require('./readiness');
const { installApp } = require('../app/install');
const { writeAppContext, INSIDE, PROBE } = require('../app/image');
const { IN_SERVICE_IMAGE } = require('../probe/env');

const { ROOT } = require('../paths');

const APP_PRIMARY = path.join(ROOT, 'lab', 'app', 'primary.js');

// The same graph as a stack on the swarm DOCKER_HOST names (a single node made with `docker
// swarm init`, or a real cluster whose nodes reach LAB_REGISTRY). The images are built on
// the manager from the compose file of the same deployment; nginx is the entry, published
// on ports.entry in host mode (on the node that runs it: a single node here), and it finds
// the service's tasks by DNS at request time, so `scale` needs no reload.
//
// On the lab's VM cluster (npm run cluster; its `env` sets LAB_CLUSTER_DIR and LAB_IMAGES=
// preloaded) nothing is built: the lab's own image is loaded on every node (again when the
// code changed) and deployed as it is there. An engine on another machine (DOCKER_HOST
// tcp:// or ssh://) has its tasks' processes out of this machine's /proc: their nodes are
// recorded instead of pids.
class SwarmRuntime extends EngineRuntime {
  constructor(options) {
    super(options, 'swarm');
    const hostUrl = this.env.DOCKER_HOST || 'unix:///var/run/docker.sock';
    this.remote = !hostUrl.startsWith('unix://');
    this.preloaded = this.env.LAB_IMAGES === 'preloaded';
  }

  docker(args, opts = {}) {
    return run('docker', args, { env: { ...this.env, ...(opts.env || {}) }, timeoutMs: opts.timeoutMs });
  }

  // The state of this folder, with the engine it names used from now on (when this
  // process's environment names none).
  stateWithEngine() {
    const { state } = this.state.inspect();
    if (state && state.dockerHost && !this.env.DOCKER_HOST) {
      this.env = { ...this.env, DOCKER_HOST: state.dockerHost };
      this.remote = !state.dockerHost.startsWith('unix://');
    }
    return state;
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
    if (!this.remote && !fs.existsSync('/proc/sys/net/ipv4/vs')) throw labError('LAB_ERR_NO_IPVS');
  }

  // The published port must be free where clients will reach it: here, or on the node.
  async assertPortFree(port) {
    const role = 'the entry (published by the swarm)';
    if (!this.remote) return assertFree([{ port, role }], this.host);
    if (!(await remoteTcpFree(port, this.host))) throw labError('LAB_ERR_PORT_IN_USE', port, `${role} on ${this.host}`);
    return undefined;
  }

  // What must hold before anything is made: no deployment up, a manager, the mesh where the
  // kind needs it, the entry's port free, workers for --placement apart, and a way for your
  // service's image to reach every node.
  async assertDeployable(deployment, ports, { placement, app, onCluster }) {
    this.assertNotUp();
    if (deployment.edges)
      throw labError('LAB_ERR_NOT_ON_ENGINE', 'caching edges', 'they run on the local and compose engines, for now');
    await this.assertManager();
    if (kindOf(deployment.balancer.kind).needsIpvs) this.assertMesh();
    await this.assertPortFree(ports.entry);
    if (placement === 'apart' && !(await this.hasWorkers())) {
      throw labError(
        'LAB_ERR_NOT_ON_ENGINE',
        '--placement apart',
        'it puts the servers on workers, and this swarm has none (npm run cluster -- up --nodes 2)',
      );
    }

    // Your service's image is built on the manager; with no registry (LAB_REGISTRY) only the
    // manager has it, which is a swarm of one node. The lab's cluster needs no image: the
    // app's folder is shared with every node.
    if (app && !onCluster && !this.env.LAB_REGISTRY && (await this.nodeCount()) > 1) {
      throw labError(
        'LAB_ERR_NOT_ON_ENGINE',
        `--app on a swarm of ${await this.nodeCount()} nodes`,
        `your service's image would be built on the manager only, and no registry (LAB_REGISTRY) takes it to the others; push through a registry, or use the lab's cluster (npm run cluster -- up), which shares your folder with its nodes`,
      );
    }
  }

  // The files of the deployment in swarm/: the entry's config (lab/kinds/), finding the tasks
  // through swarm's DNS; the compose project the images are built from; the stack.
  writeFiles(deployment, ports, options, { placement, app, onCluster }) {
    const graph = plannedGraph(options);
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
    const appContext = app && !onCluster ? writeAppContext(app, path.join(this.dir, 'app'), APP_PRIMARY) : null;
    fs.writeFileSync(composeFile, dump(composeProject(asBuilt, { root: ROOT, confs: buildConfs, appContext })));
    // On the lab's cluster: your service's files in the folder every node shares.
    const yoursMount = app && onCluster ? `/lab/yours/${app.hash}` : null;
    const stackFile = path.join(this.dir, 'stack.yml');
    const stack = stackProject(deployment, {
      confs,
      caps: roleCaps(options.caps || {}),
      publish: ports.entry,
      placement,
      appMount: this.env.LAB_CLUSTER_DIR ? '/lab' : null,
      yoursMount,
    });
    // The monitoring stack is the compose engine's; a swarm run uses the lab's own StatsD.
    delete stack.services.graphite;
    if (!app) stack.services.service.environment.STATSD_HOST = 'statsd.invalid';
    fs.writeFileSync(stackFile, dump(stack));
    return { graph, confs, composeFile, stackFile };
  }

  // The images on every node: on the lab's cluster, its runtime image loaded on each VM (and
  // your service's files shared); elsewhere built here, unless they are already (preloaded).
  async bringImages(state, composeFile, app) {
    if (this.env.LAB_CLUSTER_DIR) {
      this.log("the lab's code on every node of the cluster");
      const cluster = require('../cluster/cluster');
      const dir = this.env.LAB_CLUSTER_DIR;
      const cs = cluster.readState(dir);
      if (!cs) throw labError('LAB_ERR_CLUSTER', `no cluster is up in ${dir} (LAB_CLUSTER_DIR): npm run cluster -- up`);
      await cluster.loadLabImage(
        { dir, cacheDir: this.env.LAB_CLUSTER_CACHE || path.join(dir, 'images') },
        cs,
        this.log,
      );
      if (app) cluster.shareYours(dir, app, this.log);
    } else if (!this.preloaded) {
      this.log('building the images');
      const build = await run('docker-compose', ['-p', `${state.stack}-build`, '-f', composeFile, 'build'], {
        env: this.env,
      });
      if (build.code !== 0) throw labError('LAB_ERR_PROCESS', 'building the images', tail(build.out));
    }
  }

  // options: { bbox: { key }, caps } as for the other runtimes (caps per role in a stack).
  async up(deployment, ports, options = {}) {
    const placement = options.placement || 'spread';
    const app = deployment.app ?? null;
    const onCluster = Boolean(this.env.LAB_CLUSTER_DIR);
    await this.assertDeployable(deployment, ports, { placement, app, onCluster });

    adoptStateDir(this.stateDir);
    resetDir(this.dir, 'swarm/ in --state-dir');
    if (app) await installApp(app, this.log);
    const { graph, confs, composeFile, stackFile } = this.writeFiles(deployment, ports, options, {
      placement,
      app,
      onCluster,
    });

    const hubToken = crypto.randomBytes(16).toString('hex');
    // The runtime probe (lab/probe/): the tasks send to this machine, by the engine's bridge,
    // or on the lab's cluster by this machine's address towards its VMs.
    const probe = await this.probeState(
      {
        probe: options.probe,
        port: ports.probe,
        profileUs: options.profile,
        preload: app && !onCluster ? `${INSIDE}/${PROBE}` : IN_SERVICE_IMAGE,
        towards: this.env.LAB_CLUSTER_DIR ? await addressTowards(this.host) : null,
      },
      (args) => this.docker(args),
    );
    const state = {
      runtime: 'swarm',
      probe,
      stack: stackName(this.stateDir),
      stackFile,
      deployment,
      graph,
      caps: options.caps || {},
      host: this.host,
      ports: { entry: ports.entry },
      key: options.bbox?.key ?? '',
      placement,
      // The engine it was deployed on: `status`, `scale` and `down` go there again even from
      // a shell without the cluster's variables.
      dockerHost: this.env.DOCKER_HOST || null,
      // Where the tasks run: emulated nodes say so in every summary of a run on them.
      cluster: this.env.LAB_CLUSTER_DIR
        ? { dir: this.env.LAB_CLUSTER_DIR, emulated: this.env.LAB_EMULATED === 'tcg' }
        : null,
      url: `http://${this.host}:${ports.entry}`,
      startedAt: new Date().toISOString(),
      entryConf: graph.entry ? confs[graph.entry] || null : null,
      pids: {},
      processes: [],
    };
    // Written before anything is made, so `down` (or Ctrl-C) can remove a half-made stack.
    this.writeState(state);
    try {
      await this.bringImages(state, composeFile, app);
      this.log(`deploying the stack ${state.stack}`);
      // Images already on every node (no registry): swarm is not to look them up.
      const resolve = this.preloaded || this.env.LAB_CLUSTER_DIR ? ['--resolve-image', 'never'] : [];
      const d = await this.docker(['stack', 'deploy', ...resolve, '-c', stackFile, state.stack], {
        env: {
          LAB_KEY: state.key,
          LAB_HUB_TOKEN: hubToken,
          LAB_PROBE_OPTIONS: probe.options ?? '',
          LAB_PROBE_ADDRESS: probe.address ?? '',
          LAB_PROBE_PROFILE: probe.profileUs ? String(probe.profileUs) : '',
        },
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
  // Emulated nodes (the lab's cluster under TCG) start a task in tens of seconds.
  async waitServing(state, replicas, timeoutMs = this.env.LAB_EMULATED ? 600000 : 120000) {
    const probe = entryProbe(state.deployment, { replicas, last: 4 * replicas });
    try {
      await waitFor((i) => probe.url(state.url, i), { timeoutMs, until: probe.until, accept: probe.accept });
    } catch (err) {
      const ps = await this.docker([
        'stack',
        'ps',
        '--no-trunc',
        '--format',
        '{{.Name}} {{.CurrentState}} {{.Error}}',
        state.stack,
      ]);
      throw labError(
        'LAB_ERR_UNHEALTHY',
        `the stack ${state.stack}`,
        `${err.message}${gatewayHint(err, state.deployment.app)}\n${tail(ps.out, 20)}`,
      );
    }
  }

  async nodeCount() {
    const r = await this.docker(['node', 'ls', '-q']);
    return r.code === 0 ? r.out.split('\n').filter((l) => l.trim()).length : 1;
  }

  async hasWorkers() {
    const r = await this.docker(['node', 'ls', '--filter', 'role=worker', '-q']);
    return r.code === 0 && r.out.trim().length > 0;
  }

  // Every task of the stack with the node it runs on (docker stack ps), named like the
  // graph's nodes (replica-SLOT, bbox, hub, nginx...).
  async tasks(state) {
    const r = await this.docker([
      'stack',
      'ps',
      '--filter',
      'desired-state=running',
      '--format',
      '{{.Name}}|{{.Node}}|{{.CurrentState}}',
      state.stack,
    ]);
    if (r.code !== 0) return [];
    return r.out
      .split('\n')
      .filter((l) => l.includes('|'))
      .map((l) => {
        const [task, node, current] = l.split('|');
        const m = new RegExp(`^${state.stack}_([\\w-]+)\\.(\\d+)$`).exec(task.trim());
        if (!m) return null;
        const name = m[1] === 'service' ? `replica-${m[2]}` : m[1];
        return { name, node, status: /^Running/.test(current) ? 'up' : 'starting', since: current };
      })
      .filter(Boolean)
      .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
  }

  // Every running task's main process as a host pid, named like the graph's nodes
  // (replica-SLOT, bbox, hub, nginx), so the lab's sampler follows them. On an engine of
  // another machine, the tasks and their nodes (no pid of this machine's).
  async recordProcesses(state) {
    if (this.remote) {
      state.pids = {};
      state.processes = (await this.tasks(state)).map((t) => ({ name: t.name, node: t.node }));
      this.writeState(state);
      return;
    }
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
      if (name === state.graph.entry) state.pids[name] = Number(pid);
      else state.processes.push({ name, pid: Number(pid), container: id.trim().slice(0, 12) });
    }
    state.processes.sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }));
    this.writeState(state);
  }

  // Sets the service's task count and waits until that many answer through nginx.
  async scale(replicas) {
    const state = this.stateWithEngine();
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

  // Each task, the node it runs on (a swarm of several nodes spreads them) and its state.
  async status() {
    const state = this.stateWithEngine();
    if (!state) return null;
    const tasks = await this.tasks(state);
    const names = [...new Set([...tasks.map((t) => t.name), ...state.processes.map((p) => p.name)])].sort((a, b) =>
      a.localeCompare(b, 'en', { numeric: true }),
    );
    const live = names.map((name) => {
      const t = tasks.find((x) => x.name === name);
      const p = state.processes.find((x) => x.name === name);
      return {
        name,
        node: t?.node ?? p?.node ?? null,
        pid: name === state.graph.entry ? state.pids[name] : p?.pid,
        status: t ? t.status : 'gone',
      };
    });
    return { ...state, up: live.some((x) => x.status !== 'gone'), live };
  }

  // Removes the stack (services, its network and its configs) and waits until its
  // containers are gone; idempotent.
  async down() {
    const state = this.stateWithEngine();
    if (!state) return { stopped: [] };
    const rm = await this.docker(['stack', 'rm', state.stack]);
    if (rm.code !== 0 && !/Nothing found in stack/.test(rm.out)) {
      throw labError('LAB_ERR_PROCESS', 'docker stack rm', tail(rm.out));
    }
    const deadline = Date.now() + 60000;
    for (;;) {
      // (On several nodes the manager lists no other node's containers: its services then.)
      const left = this.remote
        ? await this.docker(['service', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${state.stack}`])
        : await this.docker(['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${state.stack}`]);
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
