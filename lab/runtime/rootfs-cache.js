'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');

// The Debian root filesystem the container base image starts from (private-engine.js's
// makeBase), kept between runs of one machine in a folder the caller names (CI: beside the
// cluster's node image, /var/cache/node-deploy-lab/base). Why: debootstrap took 43.6 s and
// 40 CPU-seconds here (vm, 2 cores) at every container suite's start, on the CI's critical
// path; unpacking the kept tar takes a few seconds. Kept by what made it (debootstrap's
// arguments and the mirror), and for a week at most, so Debian's updates still come in.
// Only files this module names (rootfs-<key>.tar) are read, replaced or removed there.
const MAX_AGE_MS = 7 * 24 * 3600 * 1000;

// The cache's name for a rootfs made by these debootstrap arguments: 16 hex digits.
const rootfsKey = (args) => crypto.createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 16);

const tarOf = (dir, key) => path.join(dir, `rootfs-${key}.tar`);

// The kept tar for `key`, or null when there is none or it is older than `maxAgeMs`.
function keptRootfs(dir, key, { now = Date.now(), maxAgeMs = MAX_AGE_MS } = {}) {
  if (!dir) return null;
  const file = tarOf(dir, key);
  try {
    return now - fs.statSync(file).mtimeMs <= maxAgeMs ? file : null;
  } catch {
    return null;
  }
}

// Unpacks a kept tar into `rootfs` (made empty first). Returns false when tar failed (the
// caller then makes the rootfs afresh).
function unpackRootfs(file, rootfs) {
  fs.rmSync(rootfs, { recursive: true, force: true });
  fs.mkdirSync(rootfs, { recursive: true });
  return (
    spawnSync('tar', ['--xattrs', '--xattrs-include=*', '--numeric-owner', '-C', rootfs, '-xf', file], {
      timeout: 300000,
    }).status === 0
  );
}

// Keeps `rootfs` as the tar for `key`: written beside, then renamed, so a reader never sees
// half a tar. A failure to keep it is not the run's failure: returns why, or null.
function keepRootfs(dir, key, rootfs) {
  if (!dir) return null;
  const file = tarOf(dir, key);
  const part = `${file}.${process.pid}.part`;
  try {
    fs.mkdirSync(dir, { recursive: true });
    const r = spawnSync('tar', ['--xattrs', '--xattrs-include=*', '--numeric-owner', '-C', rootfs, '-cf', part, '.'], {
      timeout: 300000,
      encoding: 'utf8',
    });
    if (r.status !== 0) throw new Error(`tar exited ${r.status}: ${(r.stderr || '').trim().split('\n').pop()}`);
    fs.renameSync(part, file);
    return null;
  } catch (e) {
    fs.rmSync(part, { force: true });
    return e.message;
  }
}

module.exports = { rootfsKey, keptRootfs, unpackRootfs, keepRootfs, MAX_AGE_MS };
