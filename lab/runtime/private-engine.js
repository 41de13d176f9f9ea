'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn, spawnSync } = require('node:child_process');
const { isAlive, stopTree, sleep } = require('../ownership/procs');
const { withoutCounters } = require('../cluster/network');
const { rootfsKey, keptRootfs, unpackRootfs, keepRootfs } = require('./rootfs-cache');

// A Docker engine of the lab's own (the container smoke test's and the benches'): Debian's dockerd on a private socket, its data
// and exec roots inside `dir`, started and stopped by pid. dockerd changes the host's
// network (docker0 and per-project bridges, nftables rules through iptables-nft,
// ip_forward=1) and leaves those behind when it stops (seen on the CI machine), so the
// state is recorded before and put back after.
//
// An engine whose owner was killed (SIGKILL, a machine's session ended) cannot put the host
// back itself, and the next engine would then start on a host that is not as it was. Every
// engine writes a record in a host-wide registry while it runs; the next start finds records
// whose dockerd is gone and puts the host back from that engine's own snapshot (its
// host-before.json): the lab undoes only what an engine of its own recorded.
const REGISTRY = process.env.LAB_ENGINE_REGISTRY || '/run/node-deploy-lab/engines';

function sh(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120000, ...opts });
  return { code: r.status, out: `${r.stdout || ''}${r.stderr || ''}`, stdout: r.stdout || '' };
}

// Why the smoke test cannot run here, or null when it can.
function unavailable() {
  if (process.getuid && process.getuid() !== 0) return 'not root: dockerd, bridges and nftables need root';
  for (const tool of ['dockerd', 'docker', 'docker-compose', 'debootstrap', 'nft', 'ip']) {
    if (sh('sh', ['-c', `command -v ${tool}`]).code !== 0)
      return `${tool} is missing (npm run test:containers installs it as root)`;
  }
  if (!/nf_tables/.test(sh('iptables', ['--version']).out))
    return 'iptables is not the nftables variant: the clean-up only knows how to restore nftables';
  return null;
}

// What dockerd changes on the host, in a comparable form.
function hostSnapshot() {
  const links = sh('ip', ['-o', 'link', 'show'])
    .stdout.split('\n')
    .map((l) => (/^\d+:\s+([^:@]+)/.exec(l) || [])[1])
    .filter(Boolean)
    .sort();
  const ruleset = withoutCounters(sh('nft', ['list', 'ruleset']).stdout);
  const ipForward = fs.readFileSync('/proc/sys/net/ipv4/ip_forward', 'utf8').trim();
  return { links, ruleset, ipForward };
}

function recordPath(dir) {
  return path.join(REGISTRY, `${Buffer.from(dir).toString('base64url')}.json`);
}

function readRecords() {
  let names;
  try {
    names = fs.readdirSync(REGISTRY).filter((n) => n.endsWith('.json'));
  } catch {
    return [];
  }
  const out = [];
  for (const name of names) {
    try {
      const rec = JSON.parse(fs.readFileSync(path.join(REGISTRY, name), 'utf8'));
      if (rec && typeof rec.dir === 'string') out.push({ ...rec, file: path.join(REGISTRY, name) });
    } catch {
      // A record cut short by the kill that left it: nothing in it to undo by.
    }
  }
  return out;
}

// Whether pid is the dockerd of that engine dir (a pid may have been reused since).
function isEngineDockerd(pid, dir) {
  if (!isAlive(pid)) return false;
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes(path.join(dir, 'data'));
  } catch {
    return false;
  }
}

function unmountUnder(dir) {
  const mounts = fs
    .readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m && (m === dir || m.startsWith(`${dir}/`)))
    .sort((a, b) => b.length - a.length);
  for (const m of mounts) sh('umount', ['-l', m]);
}

// Puts the host back from an engine whose dockerd is gone: unmounts what its containers
// left, restores the links, rules and ip_forward of its snapshot, removes its data. Returns
// the dirs recovered; throws when an engine of the lab still runs (two engines would each
// take the other's bridges for their own).
function recoverDeadEngines({ log = () => {} } = {}) {
  const recovered = [];
  for (const rec of readRecords()) {
    if (isEngineDockerd(rec.pid, rec.dir))
      throw new Error(
        `another engine of the lab runs (dockerd pid ${rec.pid}, ${rec.dir}): stop it first, two engines would take each other's bridges for their own`,
      );
    let before = null;
    try {
      before = JSON.parse(fs.readFileSync(path.join(rec.dir, 'host-before.json'), 'utf8'));
    } catch {
      // Its snapshot is gone: nothing proves what the host was, so leave the host alone.
    }
    unmountUnder(rec.dir);
    if (before) {
      log(`putting the host back as it was before the engine in ${rec.dir} (its owner ended without stopping it)`);
      const plan = restoreHost(before, rec.dir);
      if (plan.othersLinks.length || plan.othersTables.length)
        log(`left as they are, not that engine's: ${[...plan.othersLinks, ...plan.othersTables].join(', ')}`);
    }
    fs.rmSync(path.join(rec.dir, 'data'), { recursive: true, force: true });
    fs.rmSync(path.join(rec.dir, 'exec'), { recursive: true, force: true });
    fs.rmSync(rec.file, { force: true });
    recovered.push(rec.dir);
  }
  return recovered;
}

// What dockerd makes on the host, and only that is undone: its bridges (docker0, a swarm's
// docker_gwbridge, a compose project's br-<id>) and the host ends of its containers' veth pairs;
// the nftables tables its rules went into (through iptables-nft: each names a DOCKER chain).
// Another program's link or table, made while the engine ran (a cluster's veth, a firewall's
// table), is left as it is: the whole ruleset was once flushed and reloaded, and every new link
// deleted, whoever had made it.
const DOCKER_LINK = /^(docker0|docker_gwbridge|br-[0-9a-f]{12}|veth[0-9a-f]{7})$/;
const DOCKER_TABLE = /\bDOCKER/;

// A ruleset's tables, by "family name", each its whole block as `nft list ruleset` prints it.
function tablesOf(ruleset) {
  const tables = new Map();
  let key = null;
  let lines = [];
  for (const line of String(ruleset || '').split('\n')) {
    const m = /^table (\S+) (\S+) \{/.exec(line);
    if (m) {
      key = `${m[1]} ${m[2]}`;
      lines = [line];
    } else if (key) {
      lines.push(line);
      if (line === '}') {
        tables.set(key, lines.join('\n'));
        key = null;
      }
    }
  }
  return tables;
}

// What puts the host back from `now` to `before`, as data: the links to delete, an nft script
// (null when no table of dockerd's changed), whether to write ip_forward back, and what changed
// that was not dockerd's (left, and said).
function restorePlan(before, now) {
  const added = now.links.filter((l) => !before.links.includes(l));
  const was = tablesOf(before.ruleset);
  const is = tablesOf(now.ruleset);
  const script = [];
  const othersTables = [];
  for (const key of new Set([...was.keys(), ...is.keys()])) {
    const b = was.get(key);
    const n = is.get(key);
    if (b === n) continue;
    // (A table gone since: put back only when dockerd's own rules were in it before.)
    if (!DOCKER_TABLE.test(n ?? b ?? '')) {
      othersTables.push(key);
      continue;
    }
    if (n) script.push(`delete table ${key}`);
    if (b) script.push(b);
  }
  return {
    links: added.filter((l) => DOCKER_LINK.test(l)),
    othersLinks: added.filter((l) => !DOCKER_LINK.test(l)),
    nft: script.length ? `${script.join('\n')}\n` : null,
    othersTables,
    ipForward: now.ipForward !== before.ipForward ? before.ipForward : null,
  };
}

function restoreHost(before, dir) {
  const plan = restorePlan(before, hostSnapshot());
  for (const link of plan.links) sh('ip', ['link', 'delete', link]);
  if (plan.nft) {
    // (The script kept beside the engine's data: what was put back, and from what.)
    const saved = path.join(dir, 'ruleset-restore.nft');
    fs.writeFileSync(path.join(dir, 'ruleset-before-restore.nft'), sh('nft', ['list', 'ruleset']).stdout);
    fs.writeFileSync(saved, plan.nft);
    const r = sh('nft', ['-f', saved]);
    if (r.code !== 0) throw new Error(`could not put dockerd's nftables tables back (the script: ${saved}): ${r.out}`);
  }
  if (plan.ipForward !== null) fs.writeFileSync('/proc/sys/net/ipv4/ip_forward', `${plan.ipForward}\n`);
  return plan;
}

class PrivateEngine {
  constructor(dir) {
    this.dir = path.resolve(dir);
    this.socket = path.join(this.dir, 'docker.sock');
    this.env = { ...process.env, DOCKER_HOST: `unix://${this.socket}` };
    this.pid = null;
  }

  async start({ timeoutMs = 30000 } = {}) {
    fs.mkdirSync(this.dir, { recursive: true });
    recoverDeadEngines({ log: (line) => process.stderr.write(`${line}\n`) });
    this.before = hostSnapshot();
    fs.writeFileSync(path.join(this.dir, 'host-before.json'), JSON.stringify(this.before, null, 2));
    fs.mkdirSync(REGISTRY, { recursive: true });
    // Recorded before dockerd starts: a kill between the two still leaves a record to undo by.
    fs.writeFileSync(recordPath(this.dir), JSON.stringify({ dir: this.dir, pid: null }));
    const log = fs.openSync(path.join(this.dir, 'dockerd.log'), 'w');
    const child = spawn(
      'dockerd',
      [
        '-H',
        `unix://${this.socket}`,
        '--data-root',
        path.join(this.dir, 'data'),
        '--exec-root',
        path.join(this.dir, 'exec'),
        '--pidfile',
        path.join(this.dir, 'docker.pid'),
      ],
      { stdio: ['ignore', log, log], detached: true },
    );
    fs.closeSync(log);
    child.unref();
    this.pid = child.pid;
    fs.writeFileSync(recordPath(this.dir), JSON.stringify({ dir: this.dir, pid: this.pid }));
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (!isAlive(this.pid)) break;
      if (this.docker(['version', '--format', '{{.Server.Version}}']).code === 0) return this;
      await sleep(300);
    }
    const tail = fs.readFileSync(path.join(this.dir, 'dockerd.log'), 'utf8').trim().split('\n').slice(-5).join('\n');
    await this.stop();
    throw new Error(`dockerd did not answer within ${timeoutMs} ms:\n${tail}`);
  }

  docker(args, opts = {}) {
    return sh('docker', args, { env: this.env, ...opts });
  }

  compose(args, env = {}, opts = {}) {
    return sh('docker-compose', args, { env: { ...this.env, ...env }, timeout: 600000, ...opts });
  }

  // A base image made here, without a registry: a minimal Debian rootfs (debootstrap, with
  // the balancer and edge kinds' programs: nginx, HAProxy, Caddy, Varnish), this host's node
  // and npm, and this host's CA bundle (the registry may be reached through a TLS proxy only
  // the host trusts).
  // With `cache` (a folder; LAB_BASE_CACHE by default), the debootstrapped rootfs is kept there
  // and reused for a week (rootfs-cache.js); `log` says which.
  async makeBase(tag = 'lab-base:local', { cache = process.env.LAB_BASE_CACHE || null, log = () => {} } = {}) {
    const rootfs = path.join(this.dir, 'rootfs');
    const mirror = process.env.LAB_DEBIAN_MIRROR || 'http://deb.debian.org/debian';
    const bootArgs = ['--variant=minbase', '--include=nginx-light,haproxy,caddy,varnish,ca-certificates', 'bookworm'];
    const key = rootfsKey([...bootArgs, mirror]);
    const kept = keptRootfs(cache, key);
    if (kept && unpackRootfs(kept, rootfs)) {
      log(`base rootfs from ${kept}`);
    } else {
      // (Emptied first: an earlier run's, or a tar that did not unpack whole.)
      fs.rmSync(rootfs, { recursive: true, force: true });
      const boot = sh('debootstrap', [...bootArgs, rootfs, mirror], { timeout: 600000 });
      if (boot.code !== 0) throw new Error(`debootstrap failed:\n${boot.out.split('\n').slice(-10).join('\n')}`);
      if (cache) {
        const why = keepRootfs(cache, key, rootfs);
        log(why ? `base rootfs not kept in ${cache}: ${why}` : `base rootfs kept in ${cache}`);
      }
    }
    const node = process.execPath;
    const npmDir = npmRoot(node);
    fs.copyFileSync(node, path.join(rootfs, 'usr/local/bin/node'));
    fs.chmodSync(path.join(rootfs, 'usr/local/bin/node'), 0o755);
    fs.mkdirSync(path.join(rootfs, 'usr/local/lib/node_modules'), { recursive: true });
    fs.cpSync(npmDir, path.join(rootfs, 'usr/local/lib/node_modules/npm'), { recursive: true });
    fs.symlinkSync('../lib/node_modules/npm/bin/npm-cli.js', path.join(rootfs, 'usr/local/bin/npm'));
    fs.copyFileSync('/etc/ssl/certs/ca-certificates.crt', path.join(rootfs, 'etc/ssl/certs/ca-certificates.crt'));
    const imp = sh(
      'sh',
      [
        '-c',
        `tar -C "${rootfs}" -c . | docker import ` +
          `--change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' ` +
          `--change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - ${tag}`,
      ],
      { env: this.env, timeout: 300000 },
    );
    fs.rmSync(rootfs, { recursive: true, force: true });
    if (imp.code !== 0) throw new Error(`docker import failed: ${imp.out}`);
    return tag;
  }

  // Stops dockerd (and its containerd) by pid, unmounts what it left, removes its data and
  // puts dockerd's part of the host's network back. Returns the host's state before and after,
  // and what was put back (restorePlan).
  async stop() {
    if (this.pid && isAlive(this.pid)) await stopTree(this.pid, { signal: 'SIGTERM', timeoutMs: 20000 });
    this.pid = null;
    // Overlay and shm mounts of killed containers would keep the data root busy.
    unmountUnder(this.dir);
    const before = this.before;
    // (What it put back, and what it left as another program's: said to the caller.)
    const restored = before ? restoreHost(before, this.dir) : null;
    fs.rmSync(path.join(this.dir, 'data'), { recursive: true, force: true });
    fs.rmSync(path.join(this.dir, 'exec'), { recursive: true, force: true });
    fs.rmSync(recordPath(this.dir), { force: true });
    return { before, after: hostSnapshot(), restored };
  }
}

// The npm to put beside `node` in an image: the one installed with that node (a Node
// install's lib/node_modules/npm), else the npm that runs this command (the lab's Node
// comes from the npm registry's \`node\` package, which has no npm of its own), else the
// machine's.
function npmRoot(node) {
  const candidates = [
    path.join(path.dirname(fs.realpathSync(node)), '..', 'lib', 'node_modules', 'npm'),
    process.env.npm_execpath ? path.join(path.dirname(fs.realpathSync(process.env.npm_execpath)), '..') : null,
    '/usr/lib/node_modules/npm',
    '/usr/local/lib/node_modules/npm',
  ].filter(Boolean);
  const found = candidates.find((d) => fs.existsSync(path.join(d, 'bin', 'npm-cli.js')));
  if (!found) throw new Error(`no npm found to put in the base image (looked in ${candidates.join(', ')})`);
  return found;
}

module.exports = { PrivateEngine, unavailable, hostSnapshot, recoverDeadEngines, restorePlan, tablesOf, REGISTRY };
