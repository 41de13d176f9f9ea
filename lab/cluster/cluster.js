'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { labError } = require('../../common/errors');
const { claimDir, readMarker, removeOwnedDir, kept } = require('../ownership/dirs');
const { sleep } = require('../ownership/procs');
const { buildImage, cachedImage } = require('./image');
const { planNetwork, freeSubnet, applyNetwork, removeNetwork, hostNetwork, networkDiff } = require('./network');
const { qemuArgs, nodeFiles, createOverlay, startVm, stopVm, vmAlive, waitReady } = require('./vm');
const { syncApp, runtimeHash, PROXY_TAG, RUNTIME_REPO } = require('./lab-image');

// A swarm of VMs on this machine (`npm run cluster`): each node a QEMU process of the lab's
// own with Debian's kernel (IPVS included: swarm's routing mesh works there, unlike on a
// kernel without it), on a bridge in a network namespace of the lab's own, reachable from
// this machine only. cluster.json records what was made, so `down` removes exactly that.

const STATE = 'cluster.json';
const DOCKER_PORT = 2375;
const readState = (dir) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, STATE), 'utf8'));
  } catch {
    return null;
  }
};
const writeState = (dir, state) => {
  const tmp = path.join(dir, `${STATE}.${process.pid}.tmp`);
  fs.writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`);
  fs.renameSync(tmp, path.join(dir, STATE));
};

// docker against one node's engine; resolves { code, out }.
function docker(node, args, { timeoutMs = 120000, input = null } = {}) {
  return new Promise((resolve) => {
    const child = execFile(
      'docker',
      ['-H', `tcp://${node.ip}:${DOCKER_PORT}`, ...args],
      { timeout: timeoutMs, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ code: err ? err.code || 1 : 0, out: `${stdout}${stderr}`.trim() }),
    );
    if (input) fs.createReadStream(input).pipe(child.stdin);
  });
}

// The accelerator to try first: KVM where /dev/kvm exists (auto), else TCG.
function firstAccel(asked) {
  if (asked !== 'auto') return asked;
  return fs.existsSync('/dev/kvm') ? 'kvm' : 'tcg';
}

// Time to wait for a node's engine: a KVM guest boots in seconds; emulated ones share the
// host's cores (about 50 s for one node of 2 vCPUs here, 130 s each for two at once).
const readyTimeoutMs = (accel, nodes) => (accel === 'kvm' ? 90000 : 240000 + nodes * 60000);

// Brings a cluster up. o: { dir, cacheDir, nodes, cpus, memoryMiB, accel }; hooks: { step,
// log, own } (progress lines with elapsed times, and the command's cleanups).
async function clusterUp(o, { step, log, own }) {
  const marker = claimDir(o.dir, 'the cluster folder');
  const existing = readState(o.dir);
  if (existing && existing.nodes.some((n) => vmAlive(n.qemu, nodeFiles(o.dir, n.name)))) {
    throw labError('LAB_ERR_ALREADY_UP', `a cluster of ${existing.nodes.length} node(s)`, o.dir);
  }
  if (existing) await clusterDown(o, { log }); // leftovers of one that died: cleaned first

  const cached = cachedImage(o.cacheDir);
  if (cached) step(`node image ${cached.hash} (cached in ${o.cacheDir})`);
  const image = cached || (await buildImage(o.cacheDir, { step, own, onLine: () => {} }));
  if (image.pruned?.length) log(`removed older images from the cache: ${image.pruned.join(', ')}`);

  const before = hostNetwork();
  const plan = planNetwork({ token: marker.token, nodes: o.nodes, subnet: freeSubnet() });
  const state = {
    createdAt: new Date().toISOString(),
    image: image.hash,
    network: plan,
    hostBefore: before,
    accel: null,
    cpus: o.cpus,
    memoryMiB: o.memoryMiB,
    nodes: plan.nodes.map((n) => ({ ...n, qemu: null })),
    ready: false,
  };
  // Recorded before anything is made: an interrupt, or a later `down`, undoes it.
  writeState(o.dir, state);
  const undo = own(() => clusterDown(o, { log }));

  step(`network: namespace ${plan.ns}, bridge, ${o.nodes} tap(s), this machine at ${plan.hostIp}`);
  applyNetwork(plan);

  step("the lab's code, shared with the nodes (read-only)");
  const app = syncApp(appShare(o.dir));
  state.app = app.hash;
  let accel = firstAccel(o.accel);
  for (;;) {
    step(
      `starting ${o.nodes} node(s) (${accel === 'kvm' ? 'KVM' : 'TCG, software emulation'}, ${o.cpus} vCPU, ${o.memoryMiB} MiB each)`,
    );
    const failed = await startNodes(o, state, image, accel, log);
    if (!failed) break;
    // KVM that cannot run this kernel (this machine's kind: its KVM runs PVM guests only):
    // TCG instead, said so.
    if (accel === 'kvm' && o.accel === 'auto') {
      log(`KVM could not boot the guest (${failed}); using TCG (software emulation)`);
      for (const n of state.nodes) await stopVm(n.qemu, nodeFiles(o.dir, n.name));
      accel = 'tcg';
      continue;
    }
    throw labError('LAB_ERR_CLUSTER', failed);
  }
  state.accel = accel;
  writeState(o.dir, state);

  step('forming the swarm');
  const [manager, ...workers] = state.nodes;
  const init = await docker(manager, ['swarm', 'init', '--advertise-addr', manager.ip]);
  if (init.code !== 0) throw labError('LAB_ERR_CLUSTER', `swarm init on ${manager.name}: ${init.out}`);
  const token = await docker(manager, ['swarm', 'join-token', '-q', 'worker']);
  await Promise.all(
    workers.map(async (w) => {
      const j = await docker(w, ['swarm', 'join', '--token', token.out.trim(), `${manager.ip}:2377`]);
      if (j.code !== 0) throw labError('LAB_ERR_CLUSTER', `${w.name} could not join: ${j.out}`);
    }),
  );
  state.ready = true;
  writeState(o.dir, state);
  undo();
  return state;
}

// Creates each node's overlay and starts its QEMU; waits until every engine answers.
// Resolves null, or why a node failed.
async function startNodes(o, state, image, accel, log) {
  const t0 = Date.now();
  for (const n of state.nodes) {
    const files = nodeFiles(o.dir, n.name);
    await createOverlay(files, image);
    const args = qemuArgs({
      node: n,
      files,
      image,
      accel,
      cpus: o.cpus,
      memoryMiB: o.memoryMiB,
      gateway: state.network.hostIp,
      appShare: appShare(o.dir),
    });
    const r = await startVm(args, { ns: state.network.ns, files });
    if (r.error) return `${n.name}: ${r.error}`;
    n.qemu = r.id;
    writeState(o.dir, state);
  }
  let lastSaid = 0;
  try {
    await Promise.all(
      state.nodes.map((n) =>
        waitReady(n, nodeFiles(o.dir, n.name), {
          timeoutMs: readyTimeoutMs(accel, state.nodes.length),
          alive: () => vmAlive(n.qemu, nodeFiles(o.dir, n.name)),
          onTick: (s) => {
            if (s - lastSaid >= 15) {
              lastSaid = s;
              log(`  booting: ${Math.round((Date.now() - t0) / 1000)} s`);
            }
          },
        }).then((s) => log(`  ${n.name} (${n.ip}): engine ready after ${Math.round(s)} s`)),
      ),
    );
  } catch (err) {
    return err.message;
  }
  return null;
}

// The folder the nodes mount as /lab: the lab's code as the tasks run it (lab-image.js).
const appShare = (dir) => path.join(dir, 'share');

// The lab's code made current in the shared folder (before a deploy: the tasks started
// then run it). The runtime image was baked into the nodes with their disk image.
async function loadLabImage(o, state, log = () => {}) {
  const runtimeTag = `${RUNTIME_REPO}:${runtimeHash()}`;
  const manager = state.nodes[0];
  const base = await docker(manager, ['image', 'inspect', '-f', '{{.Id}}', runtimeTag]);
  if (base.code !== 0) {
    throw labError(
      'LAB_ERR_CLUSTER',
      `the nodes have no ${runtimeTag} (this machine's node or proxies changed since the cluster's image was built): npm run cluster -- down, then up`,
    );
  }
  const app = syncApp(appShare(o.dir));
  if (app.changed) log(`the lab's code on the nodes: ${app.changed} file(s) updated`);
  state.app = app.hash;
  writeState(o.dir, state);
  return app;
}

// Your service (--app) on every node: its folder (node_modules included, installed here:
// the nodes run the same Debian) copied once per content into the shared folder, which the
// tasks mount as /srv/app. Older copies go, so the share holds only what runs.
function shareYours(dir, app, log = () => {}) {
  const yours = path.join(appShare(dir), 'yours');
  const target = path.join(yours, app.hash);
  fs.mkdirSync(yours, { recursive: true });
  for (const name of fs.readdirSync(yours)) {
    if (name !== app.hash) fs.rmSync(path.join(yours, name), { recursive: true, force: true });
  }
  if (fs.existsSync(target)) return false;
  log(`${app.name} on the nodes: its folder shared as /srv/app`);
  fs.cpSync(app.dir, `${target}.part`, { recursive: true, filter: (src) => path.basename(src) !== '.git' });
  fs.renameSync(`${target}.part`, target);
  return true;
}

const SETTLE_MS = 10000;

// Stops every VM, removes the network and the nodes' folders; the image cache stays.
// Returns what it did, and whether the host's network is as before.
async function clusterDown(o, { log = () => {} } = {}) {
  const state = readState(o.dir);
  if (!state) return { stopped: [], network: [], nothing: true };
  const stopped = [];
  for (const n of state.nodes) {
    const files = nodeFiles(o.dir, n.name);
    if (await stopVm(n.qemu, files)) stopped.push(n.name);
  }
  const network = removeNetwork(state.network);
  fs.rmSync(path.join(o.dir, 'nodes'), { recursive: true, force: true });
  fs.rmSync(appShare(o.dir), { recursive: true, force: true });
  // Deleting the namespace returns before the kernel has destroyed it: its devices (the
  // veth's host end, with its address and route) go moments later, from a work queue. So the
  // comparison waits for them, up to SETTLE_MS, before it calls the host changed.
  const before = state.hostBefore;
  let differs = [];
  if (before) {
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      differs = networkDiff(before, hostNetwork());
      if (!differs.length || Date.now() > deadline) break;
      await sleep(250);
    }
  }
  fs.rmSync(path.join(o.dir, STATE), { force: true });
  // The folder itself when the lab made it and nothing else is left in it (an image cache
  // kept inside it stays, and so does the folder then).
  const left = fs.readdirSync(o.dir).filter((n) => !kept(n));
  if (!left.length) removeOwnedDir(o.dir);
  if (differs.length) log(`the host's network differs from before the cluster: ${differs.join('; ')}`);
  return { stopped, network, hostAsBefore: differs.length === 0, differs };
}

// What runs: each node's VM and, from the manager, the swarm's view of its nodes.
async function clusterStatus(o) {
  const state = readState(o.dir);
  if (!state) return null;
  const nodes = state.nodes.map((n) => ({
    name: n.name,
    ip: n.ip,
    pid: n.qemu?.pid ?? null,
    vm: vmAlive(n.qemu, nodeFiles(o.dir, n.name)) ? 'running' : 'stopped',
  }));
  const manager = state.nodes[0];
  const ls =
    nodes[0].vm === 'running'
      ? await docker(
          manager,
          ['node', 'ls', '--format', '{{.Hostname}} {{.Status}} {{.Availability}} {{.ManagerStatus}}'],
          { timeoutMs: 15000 },
        )
      : { code: 1, out: '' };
  const swarm = {};
  if (ls.code === 0) {
    for (const line of ls.out.split('\n').filter(Boolean)) {
      const [host, status, availability, role] = line.split(/\s+/);
      swarm[host] = { status, availability, role: role || 'worker' };
    }
  }
  for (const n of nodes)
    n.swarm = swarm[n.name] ? `${swarm[n.name].status}${swarm[n.name].role === 'Leader' ? ' (manager)' : ''}` : '-';
  return { ...state, nodes, managerIp: manager.ip };
}

// What `--engine swarm` needs to use the cluster, as shell assignments.
function clusterEnv(o, state) {
  const manager = state.nodes[0];
  return {
    DOCKER_HOST: `tcp://${manager.ip}:${DOCKER_PORT}`,
    // The address the deployments answer on (the entry runs on the manager).
    LAB_HOST: manager.ip,
    LAB_CLUSTER_DIR: o.dir,
    LAB_CLUSTER_CACHE: o.cacheDir,
    // Images are the lab's own, loaded on every node: nothing is built or pulled.
    LAB_IMAGES: 'preloaded',
    LAB_NGINX_IMAGE: PROXY_TAG,
    LAB_HAPROXY_IMAGE: PROXY_TAG,
    LAB_CADDY_IMAGE: PROXY_TAG,
    ...(state.accel === 'tcg' ? { LAB_EMULATED: 'tcg' } : {}),
  };
}

// Stops one node's VM abruptly (as a machine losing power), or starts it again on its disk.
async function stopNode(o, name) {
  const state = readState(o.dir);
  const n = state?.nodes.find((x) => x.name === name);
  if (!n)
    throw labError(
      'LAB_ERR_USAGE',
      `no node ${name} in the cluster (${(state?.nodes || []).map((x) => x.name).join(', ') || 'none up'})`,
    );
  const files = nodeFiles(o.dir, n.name);
  if (!(await stopVm(n.qemu, files, { graceMs: 0 }))) return { name, already: true };
  return { name, stoppedAt: new Date().toISOString() };
}

async function startNode(o, name, { log = () => {} } = {}) {
  const state = readState(o.dir);
  const n = state?.nodes.find((x) => x.name === name);
  if (!n) throw labError('LAB_ERR_USAGE', `no node ${name} in the cluster`);
  const files = nodeFiles(o.dir, n.name);
  if (vmAlive(n.qemu, files)) return { name, already: true };
  const image = cachedImage(o.cacheDir);
  const args = qemuArgs({
    node: n,
    files,
    image,
    accel: state.accel,
    cpus: state.cpus,
    memoryMiB: state.memoryMiB,
    gateway: state.network.hostIp,
    appShare: appShare(o.dir),
  });
  const r = await startVm(args, { ns: state.network.ns, files });
  if (r.error) throw labError('LAB_ERR_CLUSTER', `${name}: ${r.error}`);
  n.qemu = r.id;
  writeState(o.dir, state);
  const s = await waitReady(n, files, {
    timeoutMs: readyTimeoutMs(state.accel, 1),
    alive: () => vmAlive(n.qemu, files),
  });
  log(`${name}: engine ready after ${Math.round(s)} s`);
  return { name, readyAfterS: s };
}

module.exports = {
  appShare,
  shareYours,
  clusterUp,
  clusterDown,
  clusterStatus,
  clusterEnv,
  stopNode,
  startNode,
  loadLabImage,
  readState,
  docker,
  readMarker,
};
