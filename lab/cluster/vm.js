'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { RECIPE } = require('./recipe');
const { identify, check } = require('../ownership/identity');

// One cluster node: a QEMU process of the lab's own, started inside the cluster's network
// namespace with its NIC on the node's tap, its disk a copy-on-write overlay of the cached
// image, its console in a file (where the node says when its engine answers), daemonized
// with a pid file in the node's folder. Proof of ownership: that pid file names a process
// whose identity the lab recorded and whose command line names the node's folder.

// How QEMU runs the guest: KVM where it boots a stock kernel, else TCG (software emulation,
// several times slower; the notes of this machine's kind: its KVM cannot).
const ACCELS = {
  kvm: ['-accel', 'kvm', '-cpu', 'host'],
  // thread=multi: one host thread per vCPU; a 256 MiB translation cache instead of 1 GiB
  // keeps a QEMU process near 1 GiB of host memory.
  tcg: ['-accel', 'tcg,thread=multi,tb-size=256', '-cpu', 'max'],
};

const nodeDir = (clusterDir, name) => path.join(clusterDir, 'nodes', name);
function nodeFiles(clusterDir, name) {
  const dir = nodeDir(clusterDir, name);
  return {
    dir,
    overlay: path.join(dir, 'disk.qcow2'),
    console: path.join(dir, 'console.log'),
    pidFile: path.join(dir, 'qemu.pid'),
    qmp: path.join(dir, 'qmp.sock'),
  };
}

// The QEMU command line of a node (data: tests read it).
function qemuArgs({ node, files, image, accel, cpus, memoryMiB, gateway, appShare }) {
  return [
    '-name',
    `lab-${node.name}`,
    '-nodefaults',
    '-machine',
    'q35',
    ...ACCELS[accel],
    '-smp',
    String(cpus),
    '-m',
    String(memoryMiB),
    '-kernel',
    image.kernel,
    '-initrd',
    image.initrd,
    '-append',
    [...RECIPE.cmdline, `lab.name=${node.name}`, `lab.ip=${node.ip}/24`, `lab.gw=${gateway}`].join(' '),
    '-drive',
    `file=${files.overlay},if=virtio,format=qcow2,cache=writeback`,
    '-netdev',
    `tap,id=net0,ifname=${node.tap},script=no,downscript=no`,
    '-device',
    `virtio-net-pci,netdev=net0,mac=${node.mac}`,
    // The lab's code, read-only (lab/cluster/lab-image.js syncApp): mounted as /lab.
    ...(appShare ? ['-virtfs', `local,path=${appShare},mount_tag=labapp,security_model=none,readonly=on`] : []),
    '-display',
    'none',
    '-serial',
    `file:${files.console}`,
    '-qmp',
    `unix:${files.qmp},server=on,wait=off`,
    '-pidfile',
    files.pidFile,
    '-daemonize',
  ];
}

const execP = (cmd, args, timeoutMs = 60000) =>
  new Promise((resolve) =>
    execFile(cmd, args, { timeout: timeoutMs }, (err, stdout, stderr) =>
      resolve({ ok: !err, out: `${stderr}${stdout}`.trim() }),
    ),
  );

// Makes the node's overlay on the image (a fresh one: a node starts from the image).
async function createOverlay(files, image) {
  fs.mkdirSync(files.dir, { recursive: true });
  fs.rmSync(files.overlay, { force: true });
  const r = await execP('qemu-img', ['create', '-q', '-f', 'qcow2', '-F', 'raw', '-b', image.disk, files.overlay]);
  if (!r.ok) throw new Error(`qemu-img: ${r.out}`);
}

// Starts the node's QEMU in the namespace; resolves its identity once it has daemonized, or
// { error } with QEMU's words (a KVM that cannot run the guest fails here, at once).
async function startVm(args, { ns, files }) {
  fs.rmSync(files.pidFile, { force: true });
  fs.writeFileSync(files.console, '');
  const r = await execP('ip', ['netns', 'exec', ns, 'qemu-system-x86_64', ...args], 120000);
  if (!r.ok) return { error: r.out.split('\n').slice(-2).join(' ') };
  const pid = readPid(files);
  const id = pid && identify(pid);
  return id ? { id } : { error: 'QEMU started but left no process' };
}

function readPid(files) {
  try {
    return Number(fs.readFileSync(files.pidFile, 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

// Whether the recorded QEMU of a node still runs (the very process: identity, and its
// command line naming the node's folder).
function vmAlive(record, files) {
  return Boolean(record) && check(record) === 'alive' && (record.cmdline || '').includes(files.dir);
}

// Stops a node's QEMU: SIGTERM (QEMU exits at once, the guest is cut off as a machine
// losing power would be), then SIGKILL after `graceMs`.
async function stopVm(record, files, { graceMs = 5000 } = {}) {
  if (!vmAlive(record, files)) return false;
  try {
    process.kill(record.pid, 'SIGTERM');
  } catch {
    return false;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && check(record) === 'alive') await new Promise((r) => setTimeout(r, 100));
  if (check(record) === 'alive') {
    try {
      process.kill(record.pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return true;
}

// Waits until the node's console says it is ready; rejects with the console's last lines.
async function waitReady(node, files, { timeoutMs, alive = () => true, onTick = () => {} }) {
  const t0 = Date.now();
  for (;;) {
    let text = '';
    try {
      text = fs.readFileSync(files.console, 'utf8');
    } catch {
      // not yet
    }
    if (text.includes(`lab-node-ready ${node.name}`)) return (Date.now() - t0) / 1000;
    if (!alive()) throw new Error(`${node.name}'s QEMU exited: ${text.trim().split('\n').slice(-3).join(' | ')}`);
    if (Date.now() - t0 > timeoutMs) {
      throw new Error(
        `${node.name} not ready after ${Math.round(timeoutMs / 1000)} s: ${text.trim().split('\n').slice(-3).join(' | ')}`,
      );
    }
    onTick((Date.now() - t0) / 1000);
    await new Promise((r) => setTimeout(r, 500));
  }
}

module.exports = { qemuArgs, nodeFiles, createOverlay, startVm, stopVm, vmAlive, waitReady, readPid, ACCELS };
