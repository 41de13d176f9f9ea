'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { rootfsKey, keptRootfs, unpackRootfs, keepRootfs, MAX_AGE_MS } = require('../../../lab/runtime/rootfs-cache');

// The container base image's kept rootfs (lab/runtime/rootfs-cache.js): reused only when made
// by the same debootstrap arguments and mirror, within a week, and whole.
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'rootfs-cache-'));

test('the key follows what made the rootfs: another package list or mirror is another key', () => {
  const a = rootfsKey(['--variant=minbase', '--include=nginx-light', 'bookworm', 'http://deb.debian.org/debian']);
  expect(a).toMatch(/^[0-9a-f]{16}$/);
  expect(rootfsKey(['--variant=minbase', '--include=nginx-light', 'bookworm', 'http://deb.debian.org/debian'])).toBe(a);
  expect(
    rootfsKey(['--variant=minbase', '--include=nginx-light,haproxy', 'bookworm', 'http://deb.debian.org/debian']),
  ).not.toBe(a);
  expect(
    rootfsKey(['--variant=minbase', '--include=nginx-light', 'bookworm', 'http://mirror.example/debian']),
  ).not.toBe(a);
});

test('kept, then unpacked the same; none without a folder, for another key, or after a week', () => {
  const dir = tmp();
  const src = path.join(dir, 'src');
  fs.mkdirSync(path.join(src, 'etc'), { recursive: true });
  fs.writeFileSync(path.join(src, 'etc', 'os-release'), 'ID=debian\n');
  const cache = path.join(dir, 'cache');
  expect(keepRootfs(cache, 'k1', src)).toBeNull();
  // (Only the whole tar is there: its part file was renamed.)
  expect(fs.readdirSync(cache)).toEqual(['rootfs-k1.tar']);
  const kept = keptRootfs(cache, 'k1');
  expect(kept).toBe(path.join(cache, 'rootfs-k1.tar'));
  const out = path.join(dir, 'out');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'stale'), 'x');
  expect(unpackRootfs(kept, out)).toBe(true);
  expect(fs.readFileSync(path.join(out, 'etc', 'os-release'), 'utf8')).toBe('ID=debian\n');
  expect(fs.existsSync(path.join(out, 'stale'))).toBe(false);
  expect(keptRootfs(null, 'k1')).toBeNull();
  expect(keptRootfs(cache, 'k2')).toBeNull();
  const mtime = fs.statSync(kept).mtimeMs;
  expect(keptRootfs(cache, 'k1', { now: mtime + MAX_AGE_MS - 1000 })).toBe(kept);
  expect(keptRootfs(cache, 'k1', { now: mtime + MAX_AGE_MS + 1000 })).toBeNull();
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a rootfs that cannot be kept says why and leaves no part file; a broken tar is not unpacked', () => {
  const dir = tmp();
  const cache = path.join(dir, 'cache');
  expect(keepRootfs(cache, 'k1', path.join(dir, 'no-such-rootfs'))).toMatch(/tar exited/);
  expect(fs.readdirSync(cache)).toEqual([]);
  fs.writeFileSync(path.join(cache, 'rootfs-k1.tar'), 'not a tar');
  expect(unpackRootfs(path.join(cache, 'rootfs-k1.tar'), path.join(dir, 'out'))).toBe(false);
  fs.rmSync(dir, { recursive: true, force: true });
});
