'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn, execFile } = require('node:child_process');
const { labError } = require('../../common/errors');

// Puts an image into a node's disk before the node ever boots: a Docker engine of the
// lab's own runs on this machine against the node's /var/lib/docker (no bridge, no
// iptables, no forwarding: this machine's network is not touched), imports the image, and
// stops. An emulated node importing 150 MiB took 113 s (1.4 MiB/s through its emulated
// disk); here it takes seconds, once per image build.
async function bakeImage({ rootfs, tar, tag, tags = [], changes, workDir }) {
  // The engine's sockets live in its exec root, and a unix socket's path is at most 104
  // bytes to containerd: under the image cache (/var/cache/node-deploy-lab/cluster/
  // .building-<hash>-<pid>/...) containerd's debug socket was 106, and no engine answered.
  // A short folder of its own under the system's temporary folder, removed after.
  const execRoot = fs.mkdtempSync(path.join(os.tmpdir().length <= 16 ? os.tmpdir() : '/tmp', 'lab-bake-'));
  const sock = path.join(execRoot, 'docker.sock');
  const dataRoot = path.join(rootfs, 'var', 'lib', 'docker');
  fs.mkdirSync(dataRoot, { recursive: true });
  const daemon = spawn(
    'dockerd',
    [
      '--data-root',
      dataRoot,
      '--exec-root',
      execRoot,
      '-H',
      `unix://${sock}`,
      '--pidfile',
      path.join(execRoot, 'dockerd.pid'),
      '--bridge=none',
      '--iptables=false',
      '--ip-forward=false',
      '--ip-masq=false',
      '--storage-driver=overlay2',
    ],
    { stdio: ['ignore', 'ignore', fs.openSync(path.join(workDir, 'bake-dockerd.log'), 'w')] },
  );
  const exited = new Promise((r) => daemon.once('exit', r));
  const docker = (args, input) =>
    new Promise((resolve) => {
      const c = execFile('docker', ['-H', `unix://${sock}`, ...args], { timeout: 300000 }, (err, out, errOut) =>
        resolve({ ok: !err, out: `${out}${errOut}`.trim() }),
      );
      if (input) fs.createReadStream(input).pipe(c.stdin);
    });
  try {
    const deadline = Date.now() + 60000;
    while (!(await docker(['version', '--format', '{{.Server.Version}}'])).ok) {
      if (Date.now() > deadline || daemon.exitCode !== null) {
        const logFile = path.join(workDir, 'bake-dockerd.log');
        throw labError(
          'LAB_ERR_PROCESS',
          'baking the lab image',
          `no engine answered: ${lastError(logFile)} (${logFile})`,
        );
      }
      await new Promise((r) => setTimeout(r, 250));
    }
    const r = await docker(['import', ...changes.flatMap((c) => ['--change', c]), '-', tag], tar);
    if (!r.ok) throw labError('LAB_ERR_PROCESS', 'baking the lab image', r.out);
    for (const t of tags) {
      const tr = await docker(['tag', tag, t]);
      if (!tr.ok) throw labError('LAB_ERR_PROCESS', `tagging ${t}`, tr.out);
    }
  } finally {
    daemon.kill('SIGTERM');
    await Promise.race([exited, new Promise((r) => setTimeout(r, 20000))]);
    if (daemon.exitCode === null) daemon.kill('SIGKILL');
    await exited;
    // dockerd makes its data root a mount of its own; an engine that failed may leave it,
    // and the build folder could then not be removed (EBUSY).
    if (isMountPoint(dataRoot)) await new Promise((r) => execFile('umount', [dataRoot], () => r()));
    fs.rmSync(execRoot, { recursive: true, force: true });
  }
  // What makes each engine itself: made again by each node's engine at its first start.
  for (const p of ['engine-id', 'swarm', 'network', 'runtimes'])
    fs.rmSync(path.join(dataRoot, p), { recursive: true, force: true });
}

// Whether `dir` is a mount point now (this process's view).
function isMountPoint(dir) {
  try {
    return fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .some((l) => l.split(' ')[4] === dir);
  } catch {
    return false;
  }
}

// The engine's last error or fatal line, for the message: its log says why, not the lab.
function lastError(logFile) {
  try {
    const lines = fs.readFileSync(logFile, 'utf8').trim().split('\n');
    const bad = lines.filter((l) => /level=(error|fatal)|failed|too long/i.test(l));
    return (bad.at(-1) || lines.at(-1) || 'its log is empty').slice(0, 300);
  } catch {
    return 'no log';
  }
}

module.exports = { bakeImage, isMountPoint };
