'use strict';

const fs = require('node:fs');
const path = require('node:path');
const os = require('node:os');
const { defineCommand, flag } = require('../terminal/flags');
const { labError } = require('../../common/errors');
const { holdDir } = require('../ownership/lock');
const { readMarker, removeOwnedDir } = require('../ownership/dirs');
const { own } = require('../ownership/cleanups');
const { pick } = require('../names');
const { parseMemory } = require('../topology/caps');
const { ensureProgram } = require('../programs/install');
const { clock } = require('../terminal/progress');
const table = require('../terminal/table');
const { WORK } = require('../paths');
const cluster = require('../cluster/cluster');

const USAGE = `usage: npm run cluster -- <action> [options]
A swarm of virtual machines on this machine, each with its own (Debian's) kernel: several
nodes for --engine swarm, and swarm's routing mesh (IPVS), which this machine's own kernel
may lack. Needs root (network namespace, taps); installs QEMU and debootstrap when missing.
  up [--nodes N] [--cpus C] [--memory M] [--accel auto|kvm|tcg]
                 N nodes (default 2; the first is the manager), C vCPUs (default 1) and M
                 memory (default 1024M) each; KVM when it boots the guest, else TCG (emulated)
  status         the nodes, their VMs and what the swarm says of them
  env            the variables --engine swarm needs: eval "$(npm run -s cluster -- env)"
  stop-node N    node N goes away at once (as a machine losing power); start-node N: back
  down [--purge] stops every VM and removes the network (--purge: the cached image too)
options: --dir DIR (LAB_CLUSTER_DIR, default .lab/cluster), --cache DIR (LAB_CLUSTER_CACHE,
  default <dir>/images: the node image, about 1 GiB, built once), --json`;

const ACTIONS = ['up', 'status', 'env', 'down', 'stop-node', 'start-node'];
const COMMAND = defineCommand({
  usage: USAGE,
  positionals: { min: 1, max: 2, name: 'action' },
  flags: {
    nodes: flag.int(1, 5),
    cpus: flag.int(1, Math.max(1, os.cpus().length)),
    memory: { type: 'custom', parse: (raw) => parseMemory(raw, raw), expected: 'a size like 1024M or 2G' },
    accel: flag.enum(['auto', 'kvm', 'tcg'], 'accel'),
    purge: flag.bool(),
    dir: { ...flag.path(), env: 'LAB_CLUSTER_DIR', default: path.join(WORK, '.lab', 'cluster') },
    cache: { ...flag.path(), env: 'LAB_CLUSTER_CACHE' },
  },
});

// What the host needs, by program and Debian package.
const TOOLS = [
  { name: 'qemu-system-x86_64', package: 'qemu-system-x86' },
  { name: 'qemu-img', package: 'qemu-utils' },
  { name: 'debootstrap', package: 'debootstrap' },
  { name: 'mkfs.ext4', package: 'e2fsprogs' },
  { name: 'ip', package: 'iproute2' },
  { name: 'docker', package: 'docker.io' },
];

function plan(argv) {
  const { help, values, given, positionals } = COMMAND.parse(argv);
  if (help) return { help: true };
  const action = pick('cluster action', positionals[0], ACTIONS);
  const nodeArg = positionals[1];
  if (['stop-node', 'start-node'].includes(action) !== (nodeArg !== undefined)) {
    throw action === 'stop-node' || action === 'start-node'
      ? labError('LAB_ERR_MISSING_ARG', `a node to ${action} (1, 2, ... or node2)`, USAGE)
      : labError('LAB_ERR_UNEXPECTED_ARG', nodeArg, USAGE);
  }
  for (const f of ['nodes', 'cpus', 'memory', 'accel']) {
    if (given.has(f) && action !== 'up') throw labError('LAB_ERR_FLAG_VALUE', f, null, 'it is for `cluster up`');
  }
  if (given.has('purge') && action !== 'down')
    throw labError('LAB_ERR_FLAG_VALUE', 'purge', null, 'it is for `cluster down`');
  const memoryBytes = values.memory ?? 1024 * 2 ** 20;
  if (memoryBytes < 768 * 2 ** 20)
    throw labError('LAB_ERR_FLAG_VALUE', 'memory', values.memory, 'at least 768M (Debian, dockerd and the tasks)');
  const nodes = values.nodes ?? 2;
  if (action === 'up' && nodes * (memoryBytes + 2 ** 30) > os.totalmem() * 0.8) {
    throw labError(
      'LAB_ERR_USAGE',
      `${nodes} node(s) of ${Math.round(memoryBytes / 2 ** 20)} MiB need about ${Math.round((nodes * (memoryBytes + 2 ** 30)) / 2 ** 30)} GiB here (each QEMU adds ~1 GiB); this machine has ${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    );
  }
  const node = nodeArg === undefined ? null : /^\d+$/.test(nodeArg) ? `node${nodeArg}` : nodeArg;
  const cacheDir = values.cache ?? path.join(values.dir, 'images');
  // --purge deletes only a cache the lab made (its marker, lab/ownership/dirs.js): refused
  // before anything stops, whichever way the folder was named (--cache, LAB_CLUSTER_CACHE, --dir).
  if (values.purge && fs.existsSync(cacheDir) && !readMarker(cacheDir)) {
    throw labError(
      'LAB_ERR_NOT_OURS',
      `--purge: the image cache`,
      cacheDir,
      'it has no marker of the lab (.lab-owned), so the lab did not create it and will not delete it',
    );
  }
  return {
    action,
    node,
    values,
    o: {
      dir: values.dir,
      cacheDir,
      nodes,
      cpus: values.cpus ?? 1,
      memoryMiB: Math.round(memoryBytes / 2 ** 20),
      accel: values.accel ?? 'auto',
    },
  };
}

const needsRoot = (action) => {
  if (process.getuid && process.getuid() !== 0) {
    throw labError(
      'LAB_ERR_CLUSTER',
      `\`cluster ${action}\` needs root (a network namespace, taps and QEMU's tap devices): run it with sudo`,
    );
  }
};

function envLines(env) {
  return Object.entries(env)
    .map(([k, v]) => `export ${k}=${/^[\w@%+=:,./-]+$/.test(v) ? v : `'${v}'`}`)
    .join('\n');
}

async function clusterCommand(argv, { log }) {
  const p = plan(argv);
  if (p.help) return { stdout: USAGE };
  const { action, o } = p;
  const t0 = Date.now();
  const step = (what) => log(`[${clock((Date.now() - t0) / 1000)}] ${what}`);

  if (action === 'status' || action === 'env') {
    const s = await cluster.clusterStatus(o);
    if (!s) {
      if (action === 'env')
        throw labError('LAB_ERR_CLUSTER', 'no cluster is up: start one with `npm run cluster -- up`');
      return {
        stdout: p.values.json
          ? JSON.stringify({ up: false })
          : 'no cluster is up (start one with: npm run cluster -- up)',
      };
    }
    if (action === 'env') {
      const env = cluster.clusterEnv(o, s);
      return { stdout: p.values.json ? JSON.stringify(env, null, 2) : envLines(env) };
    }
    if (p.values.json) return { stdout: JSON.stringify(s, null, 2) };
    const accel = s.accel === 'tcg' ? 'TCG (software emulation: timings comparable only within this cluster)' : s.accel;
    return {
      stdout: `${table(s.nodes, [
        ['name', 'node'],
        ['ip', 'address'],
        ['pid', 'QEMU pid'],
        ['vm', 'VM'],
        ['swarm', 'swarm'],
      ])}\n\n${s.nodes.length} node(s), ${s.cpus} vCPU and ${s.memoryMiB} MiB each, ${accel}; image ${s.image}, lab image ${s.labImage || '-'}`,
    };
  }

  needsRoot(action);
  holdDir(o.dir, '--dir');
  if (action === 'down') {
    const r = await cluster.clusterDown(o, { log });
    if (p.values.purge) {
      if (removeOwnedDir(o.cacheDir)) log(`removed the image cache ${o.cacheDir}`);
      else log(`no image cache at ${o.cacheDir}`);
    }
    if (p.values.json) return { stdout: JSON.stringify(r, null, 2) };
    if (r.nothing) return { stdout: 'nothing was up' };
    return {
      stdout: `stopped ${r.stopped.length} node(s); removed ${r.network.join(', ') || 'no network device (already gone)'}; the host's network ${r.hostAsBefore ? 'is as before' : `differs: ${r.differs.join('; ')}`}`,
      exitCode: r.hostAsBefore ? 0 : 1,
    };
  }
  if (action === 'stop-node') {
    const r = await cluster.stopNode(o, p.node);
    return { stdout: r.already ? `${p.node} was not running` : `${p.node} stopped at ${r.stoppedAt}` };
  }
  if (action === 'start-node') {
    const r = await cluster.startNode(o, p.node, { log });
    return {
      stdout: r.already
        ? `${p.node} is already running`
        : `${p.node} is back (engine ready after ${Math.round(r.readyAfterS)} s)`,
    };
  }

  // up
  step('checking the tools: QEMU, debootstrap, e2fsprogs, iproute2, the docker client');
  for (const tool of TOOLS) {
    await ensureProgram({ ...tool, why: 'the cluster' }, log).catch((err) => {
      throw labError(
        'LAB_ERR_CLUSTER',
        `${tool.name} is missing${err.detail ? ` (${err.detail})` : ''}: run \`sudo apt-get install -y ${TOOLS.map((t) => t.package).join(' ')}\``,
      );
    });
  }
  const state = await cluster.clusterUp(o, { step, log, own });
  const env = cluster.clusterEnv(o, state);
  step(`the swarm is up: ${state.nodes.length} node(s)`);
  if (p.values.json) return { stdout: JSON.stringify({ ...state, env }, null, 2) };
  const emulated =
    state.accel === 'tcg'
      ? '\nThe nodes are emulated (TCG): timings are several times slower than this machine and comparable only within this cluster.'
      : '';
  return {
    stdout: `a swarm of ${state.nodes.length} node(s) is up (${state.nodes.map((n) => `${n.name} ${n.ip}`).join(', ')}), in ${clock((Date.now() - t0) / 1000)}${emulated}

Use it:
  eval "$(npm run -s cluster -- env)"
  npm run deploy -- replicated --engine swarm --replicas 4
Stop it: npm run cluster -- down`,
  };
}

clusterCommand.usage = USAGE;
clusterCommand.plan = plan;
module.exports = clusterCommand;
