'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');

// The programs the lab runs that are not Node's (nginx and the other proxy kinds, the data
// stores, the cluster's tools): found on the PATH (or in the usual folders), or installed from
// Debian's packages when the lab runs as root, as scripts/setup.sh does. Low in lab/: it
// imports nothing of the lab's.

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

module.exports = { whereIs, run, ensureProgram, aptInstall };
