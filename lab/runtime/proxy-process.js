'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { labError } = require('../../common/errors');
const { nginxPaths } = require('./nginx-process');

// The local side of the proxy kinds (lab/kinds/) that are not nginx: their binary (found,
// or installed from Debian's packages when the lab runs as root, as the set-up does for
// nginx), their prefix inside the state folder, and their config check before they start.
// They run in the foreground under the deployment's pm2, so they are owned, restarted and
// stopped like the replicas (and capped the same way).

const SEARCH = ['/usr/sbin', '/usr/bin', '/usr/local/sbin', '/usr/local/bin'];
function whereIs(name, env = process.env) {
  const dirs = [...(env.PATH || '').split(':').filter(Boolean), ...SEARCH];
  for (const d of dirs) {
    const p = path.join(d, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return null;
}

function run(command, args, { timeoutMs = 30000, env = process.env } = {}) {
  return new Promise((resolve) => {
    execFile(command, args, { timeout: timeoutMs, env, maxBuffer: 8 << 20 }, (err, stdout, stderr) =>
      resolve({ ok: !err, output: `${stderr}${stdout}`, timedOut: Boolean(err && err.killed) }),
    );
  });
}

// The kind's binary: found, or installed (root, apt-get) with a line saying so, or
// LAB_ERR_KIND_MISSING with the exact command to run.
async function ensureBinary(kind, log = () => {}) {
  const found = await ensureProgram(
    { ...kind.bin, why: `--balancer/--edge-kind ${kind.flag || kind.name}` },
    log,
  ).catch((err) => {
    throw labError('LAB_ERR_KIND_MISSING', kind.name, kind.bin.name, kind.bin.package, err.detail);
  });
  return found;
}

// A program of Debian's package `package`: found, or installed with apt-get when the lab
// runs as root (as scripts/setup.sh does for nginx), else an error whose `detail` says why.
async function ensureProgram({ name, package: pkg, why }, log = () => {}) {
  const found = whereIs(name);
  if (found) return found;
  const output = await aptInstall(pkg, why, name, log);
  const now = whereIs(name);
  if (!now) throw Object.assign(new Error(`${name} is missing`), { detail: output.trim().split('\n').pop(), pkg });
  return now;
}

// Debian's package `pkg` installed with apt-get, when the lab runs as root (as
// scripts/setup.sh does); resolves apt's output. Not root (or no apt-get): rejects with an
// error whose `detail` is null (the caller says the command to run).
async function aptInstall(pkg, why, name = pkg, log = () => {}) {
  const canInstall = process.getuid && process.getuid() === 0 && whereIs('apt-get');
  if (!canInstall) throw Object.assign(new Error(`${name} is missing`), { detail: null, pkg });
  log(`installing ${pkg} (Debian's package, for ${why})`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // (Another install may hold dpkg's lock: waited for, as scripts/setup.sh does.)
  const install = ['-o', 'DPkg::Lock::Timeout=300', 'install', '-y', '-qq', '--no-install-recommends', pkg];
  let r = await run('apt-get', install, { timeoutMs: 330000, env });
  if (!r.ok) {
    await run('apt-get', ['-o', 'DPkg::Lock::Timeout=300', 'update', '-qq'], { timeoutMs: 330000, env });
    r = await run('apt-get', install, { timeoutMs: 330000, env });
  }
  return r.output;
}

// Where a proxy node keeps its files in a state folder: nginx kinds in the lab's nginx
// prefixes (lab/runtime/nginx-process.js), the others in nodes/<node>/.
function proxyPaths(stateDir, node, kind) {
  if (kind.nginx) return nginxPaths(stateDir, node.name);
  const prefix = path.join(stateDir, 'nodes', node.name);
  return {
    prefix,
    confFile: path.join(prefix, kind.confFile || 'config'),
    pidFile: path.join(prefix, `${node.name}.pid`),
    workDir: path.join(prefix, 'work'),
  };
}

// The kind's own check of its rendered config, before anything starts: a config it rejects
// is LAB_ERR_PROXY_CONFIG with its words, not a process that dies at once.
async function checkConfig(kind, ctx) {
  if (!kind.check) return;
  const { command, args } = kind.check(ctx);
  const r = await run(command, args, { timeoutMs: 30000 });
  if (!r.ok) {
    const words = r.output.trim().split('\n').filter(Boolean).slice(-3).join(' ');
    throw labError('LAB_ERR_PROXY_CONFIG', kind.name, r.timedOut ? 'the check did not finish in 30 s' : words);
  }
}

module.exports = {
  aptInstall,
  ensureBinary,
  ensureProgram,
  proxyPaths,
  checkConfig,
  whereIs,
};
