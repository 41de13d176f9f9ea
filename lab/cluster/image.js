'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');
const { RECIPE, recipeHash } = require('./recipe');
const { claimDir } = require('../ownership/dirs');
const { buildRuntimeTar, runtimeHash, CHANGES, TAGS } = require('./lab-image');
const { bakeImage } = require('./bake');

// Builds a node's disk image from Debian's packages (debootstrap), once: the kernel, a small
// initrd, and an ext4 file system holding the rest with the lab's runtime image already in
// its engine (lab/cluster/lab-image.js), cached under the hash of the recipe and of that
// runtime, with the lab's marker. A build happens in a folder of its own and becomes the cache entry by one
// rename at its end, so an interrupted build leaves no half-made image (its folder is
// removed by the command's cleanup, or by the next build).

// Runs a command, its output lines passed to onLine; resolves its output, or throws
// LAB_ERR_PROCESS naming the step with its last lines.
function run(cmd, args, { what, onLine = () => {}, timeoutMs = 900000, env = process.env } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let rest = '';
    const take = (d) => {
      out += d;
      rest += d;
      let at;
      while ((at = rest.indexOf('\n')) >= 0) {
        onLine(rest.slice(0, at));
        rest = rest.slice(at + 1);
      }
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(labError('LAB_ERR_PROCESS', what || cmd, err.message));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(labError('LAB_ERR_PROCESS', what || cmd, out.trim().split('\n').slice(-3).join(' ')));
    });
  });
}

// The cache key: the recipe and the runtime baked in (this machine's node and proxies).
const imageKey = () =>
  require('node:crypto').createHash('sha256').update(`${recipeHash()} ${runtimeHash()}`).digest('hex').slice(0, 12);
const entryOf = (cacheDir, hash = imageKey()) => path.join(cacheDir, hash);
const FILES = ['base.img', 'vmlinuz', 'initrd.img', 'recipe.json'];

// The cached image of this recipe, or null.
function cachedImage(cacheDir) {
  const dir = entryOf(cacheDir);
  return FILES.every((f) => fs.existsSync(path.join(dir, f))) ? imageAt(dir) : null;
}
const imageAt = (dir) => ({
  dir,
  hash: path.basename(dir),
  disk: path.join(dir, 'base.img'),
  kernel: path.join(dir, 'vmlinuz'),
  initrd: path.join(dir, 'initrd.img'),
});

// Builds the image into the cache (when it is not there yet). step(name) starts a step of
// the progress the caller shows; onLine gets the tools' lines. own(fn) registers a cleanup.
async function buildImage(cacheDir, { step = () => {}, onLine = () => {}, own = () => () => {}, mirror } = {}) {
  const have = cachedImage(cacheDir);
  if (have) return { ...have, built: false };
  claimDir(cacheDir, 'the cluster image cache');
  const hash = imageKey();
  // Leftovers of builds that were cut short (a SIGKILL gives no time to clean up).
  for (const name of fs.readdirSync(cacheDir)) {
    if (name.startsWith('.building-') || name.startsWith('.runtime-'))
      fs.rmSync(path.join(cacheDir, name), { recursive: true, force: true });
  }
  const work = path.join(cacheDir, `.building-${hash}-${process.pid}`);
  const release = own(() => fs.rmSync(work, { recursive: true, force: true }));
  const rootfs = path.join(work, 'rootfs');
  fs.mkdirSync(work, { recursive: true });

  step(`debootstrap: Debian ${RECIPE.suite} with ${RECIPE.packages.length} packages (the kernel, docker.io, ...)`);
  await run(
    'debootstrap',
    [
      '--variant=minbase',
      `--include=${RECIPE.packages.join(',')}`,
      RECIPE.suite,
      rootfs,
      mirror || process.env.LAB_DEBIAN_MIRROR || 'http://deb.debian.org/debian',
    ],
    { what: 'debootstrap', onLine },
  );

  step('the node init, a small initrd');
  fs.writeFileSync(path.join(rootfs, 'sbin', 'lab-init'), RECIPE.init, { mode: 0o755 });
  fs.writeFileSync(path.join(rootfs, 'etc', 'initramfs-tools', 'modules'), `${RECIPE.initrdModules.join('\n')}\n`);
  const conf = path.join(rootfs, 'etc', 'initramfs-tools', 'initramfs.conf');
  fs.writeFileSync(conf, fs.readFileSync(conf, 'utf8').replace(/^MODULES=.*$/m, 'MODULES=list'));
  const kernels = fs.readdirSync(path.join(rootfs, 'boot')).filter((f) => /^vmlinuz-/.test(f));
  if (kernels.length !== 1)
    throw labError('LAB_ERR_PROCESS', 'the image build', `found ${kernels.length} kernels in /boot`);
  const version = kernels[0].slice('vmlinuz-'.length);
  await run('chroot', [rootfs, 'mkinitramfs', '-o', '/boot/initrd.lab', version], { what: 'mkinitramfs', onLine });
  fs.copyFileSync(path.join(rootfs, 'boot', kernels[0]), path.join(work, 'vmlinuz'));
  fs.copyFileSync(path.join(rootfs, 'boot', 'initrd.lab'), path.join(work, 'initrd.img'));
  // Not needed on a node: package caches and documentation.
  for (const p of ['var/cache/apt/archives', 'var/lib/apt/lists', 'usr/share/doc', 'usr/share/man']) {
    fs.rmSync(path.join(rootfs, p), { recursive: true, force: true });
  }

  step("the lab's runtime (this machine's node and proxies) into the node's engine");
  const runtime = buildRuntimeTar(cacheDir);
  await bakeImage({ rootfs, tar: runtime.tar, tag: runtime.tag, tags: TAGS, changes: CHANGES, workDir: work });

  step(`the file system (ext4, ${RECIPE.diskGiB} GiB sparse)`);
  const disk = path.join(work, 'base.img');
  fs.closeSync(fs.openSync(disk, 'w'));
  fs.truncateSync(disk, RECIPE.diskGiB * 2 ** 30);
  await run('mkfs.ext4', ['-q', '-F', '-L', 'labroot', '-d', rootfs, disk], { what: 'mkfs.ext4', onLine });
  fs.rmSync(rootfs, { recursive: true, force: true });
  fs.writeFileSync(
    path.join(work, 'recipe.json'),
    `${JSON.stringify({ hash, kernel: version, runtime: runtime.tag, ...RECIPE }, null, 2)}\n`,
  );
  fs.renameSync(work, entryOf(cacheDir, hash));
  release();
  const pruned = pruneCache(cacheDir, [hash, path.basename(runtime.tar)]);
  return { ...imageAt(entryOf(cacheDir, hash)), built: true, pruned };
}

// Files some process of this machine has open (a running node's disk is its overlay, whose
// backing file is the image's base.img).
function openFiles() {
  const open = new Set();
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    let fds;
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        open.add(fs.readlinkSync(`/proc/${pid}/fd/${fd}`));
      } catch {
        // closed meanwhile
      }
    }
  }
  return open;
}

// After a new image is built (this machine's node or proxies changed), the cache's older
// images (1 GiB each) and runtimes go, except any a running node still uses. The cache is
// the lab's own folder (claimed with its marker); nothing else is touched.
function pruneCache(cacheDir, keep) {
  const open = [...openFiles()];
  const removed = [];
  for (const name of fs.readdirSync(cacheDir)) {
    if (name.startsWith('.') || keep.includes(name)) continue;
    const p = path.join(cacheDir, name);
    const ours =
      /^[0-9a-f]{12}$/.test(name) || /^runtime-[0-9a-f]{12}\.tar$/.test(name) || /^app-[0-9a-f]{12}$/.test(name);
    if (!ours || open.some((f) => f === p || f.startsWith(`${p}/`))) continue;
    fs.rmSync(p, { recursive: true, force: true });
    removed.push(name);
  }
  return removed;
}

module.exports = { buildImage, cachedImage, imageKey, run, pruneCache };
