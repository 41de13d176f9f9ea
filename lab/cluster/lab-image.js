'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT } = require('../paths');
const { IMAGES } = require('../topology/compose-file');
const { KINDS } = require('../kinds');

// What every task on a cluster node runs: the service, the black boxes, the hub, the lab's
// balancer and its generators (lab/), with nginx, HAProxy and Caddy for the entry. Made
// from files on the host (no registry, no network from the nodes), in two parts:
//  - the runtime image: this machine's node, proxies and their libraries (the nodes run the
//    same Debian), ~155 MiB, baked into the node image when it is built (lab/cluster/bake.js),
//    under the names the stack uses;
//  - the lab's code and the node_modules it requires (~10 MiB): a folder on the host that
//    every node mounts read-only (QEMU's 9p) and the tasks mount as /app, refreshed before
//    each deploy, so changed code runs at once.
// An emulated node imported 150 MiB at 1.4 MiB/s (113 s), and built a 10 MiB image from the
// runtime in 134-141 s: neither is paid per deploy this way.
const APP_DIRS = ['common', 'service', 'bbox', 'hub', 'balancer', 'lab', 'artillery', 'probe'];
const APP_FILES = ['package.json', 'scripts/healthcheck.js'];
// What the image's Node programs require: the service's, lab/'s (hdr-histogram-js, js-yaml),
// and the load nodes' engine running Artillery's script features (lab/generators/vu/), as
// service/Dockerfile installs them (test/lab/cluster/plan.test.js keeps both true: a load
// node without them died at its first require, "went away before its end").
const DEPS = [
  'express',
  'statsd-client',
  'ws',
  'hdr-histogram-js',
  'js-yaml',
  'ms',
  'lodash',
  'jsonpath-plus',
  'cheerio',
  'jmespath',
  'csv-parse',
  'filtrex',
  'tough-cookie',
  'form-data',
  'esbuild-wasm',
  'socket.io-client',
  'socketio-wildcard',
];
// Node, and the programs of every kind that runs on a swarm, as each kind declares them.
const BINARIES = [
  { src: process.execPath, dst: '/usr/local/bin/node' },
  ...[
    ...new Set(
      Object.values(KINDS)
        .filter((k) => k.runtimes.includes('swarm'))
        .flatMap((k) => k.programs.bins),
    ),
  ].map((bin) => ({ src: bin, dst: bin })),
];
// The names the stack's services use, all pointing at the lab image on a cluster.
const PROXY_TAG = 'node-deploy-lab-proxy:cluster';
const TAGS = [IMAGES.service, IMAGES.bbox, PROXY_TAG];
const RUNTIME_REPO = 'node-deploy-lab-runtime';
// How containers of the image start, as the Dockerfiles of service/ and bbox/ say.
const CHANGES = [
  'WORKDIR /app',
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  'ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 BBOX_HOST=0.0.0.0 BBOX_CONFIG=/config/config.properties',
  'USER 10001:10001',
  'CMD ["node", "service/index.js"]',
];
const ETC = {
  'etc/passwd':
    'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\nlab:x:10001:10001:lab:/tmp:/usr/sbin/nologin\n',
  'etc/group': 'root:x:0:\nnogroup:x:65534:\nlab:x:10001:\n',
  'etc/nsswitch.conf': 'passwd: files\ngroup: files\nhosts: files dns\n',
};

// The shared libraries a binary loads (ldd), the loader included.
function libraries(bin) {
  const out = execFileSync('ldd', [bin], { encoding: 'utf8' });
  const libs = [];
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)/.exec(line) || /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.push(m[1]);
  }
  return libs;
}

// The packages `names` need, from the repository's node_modules (hoisted, as npm lays them).
function moduleClosure(names, modules = path.join(ROOT, 'node_modules')) {
  const seen = new Set();
  const walk = (name) => {
    if (seen.has(name)) return;
    const pkgFile = path.join(modules, name, 'package.json');
    if (!fs.existsSync(pkgFile)) throw new Error(`${name} is not in node_modules (npm ci first)`);
    seen.add(name);
    const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
    for (const dep of Object.keys(pkg.dependencies || {})) walk(dep);
  };
  names.forEach(walk);
  return [...seen].sort();
}

// One copy per destination (libraries shared by several binaries), in a stable order.
const dedupe = (files) =>
  [...new Map(files.map(([s, d]) => [d, s])).entries()].map(([d, s]) => [s, d]).sort((a, b) => (a[1] < b[1] ? -1 : 1));

// Every regular file under `src`, as [source, destination under `dst`].
function walk(src, dst, skip = () => false) {
  const out = [];
  for (const e of fs.readdirSync(src, { withFileTypes: true })) {
    if (skip(e.name)) continue;
    const s = path.join(src, e.name);
    const d = path.join(dst, e.name);
    if (e.isDirectory()) out.push(...walk(s, d, skip));
    else if (e.isFile()) out.push([s, d]);
  }
  return out;
}

// The runtime's files, as [source, destination in the image].
function runtimeManifest() {
  const files = [];
  for (const b of BINARIES.filter((x) => fs.existsSync(x.src))) {
    files.push([b.src, b.dst]);
    for (const lib of libraries(b.src)) files.push([lib, lib]);
  }
  return dedupe(files);
}

// The lab's files (its code and the node_modules it requires), as [source, destination].
function appManifest() {
  const files = [];
  for (const d of APP_DIRS) files.push(...walk(path.join(ROOT, d), path.join('/app', d), (n) => n === 'node_modules'));
  for (const f of APP_FILES) files.push([path.join(ROOT, f), path.join('/app', f)]);
  for (const m of moduleClosure(DEPS)) {
    files.push(...walk(path.join(ROOT, 'node_modules', m), path.join('/app/node_modules', m)));
  }
  files.push([path.join(ROOT, 'bbox', 'config.properties'), '/config/config.properties']);
  return dedupe(files);
}

// A content's hash: every file's destination and bytes, and what else makes the image.
function contentHash(files, extra = '') {
  const h = crypto.createHash('sha256');
  for (const [src, dst] of files) h.update(`${dst}\0`).update(fs.readFileSync(fs.realpathSync(src)));
  h.update(extra);
  return h.digest('hex').slice(0, 12);
}
const runtimeHash = () => contentHash(runtimeManifest(), JSON.stringify(ETC));

function copyInto(root, files) {
  for (const [src, dst] of files) {
    const real = fs.realpathSync(src);
    const to = path.join(root, dst);
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(real, to);
    fs.chmodSync(to, fs.statSync(real).mode & 0o777);
  }
}

// The runtime as a tar in `cacheDir` (once per content): { tar, tag, hash, built }.
function buildRuntimeTar(cacheDir) {
  const files = runtimeManifest();
  const hash = contentHash(files, JSON.stringify(ETC));
  const tar = path.join(cacheDir, `runtime-${hash}.tar`);
  const tag = `${RUNTIME_REPO}:${hash}`;
  if (fs.existsSync(tar)) return { tar, tag, hash, built: false };
  fs.mkdirSync(cacheDir, { recursive: true });
  const root = path.join(cacheDir, `.runtime-${hash}-${process.pid}`);
  fs.rmSync(root, { recursive: true, force: true });
  try {
    copyInto(root, files);
    for (const [rel, text] of Object.entries(ETC)) {
      fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
      fs.writeFileSync(path.join(root, rel), text);
    }
    // What the proxies open at start as a non-root user: /tmp, nginx's compiled-in log.
    for (const d of ['tmp', 'var/log/nginx', 'var/lib/nginx', 'run', 'app']) {
      fs.mkdirSync(path.join(root, d), { recursive: true });
      fs.chmodSync(path.join(root, d), 0o1777);
    }
    const part = `${tar}.part`;
    execFileSync('tar', ['-C', root, '--numeric-owner', '--owner=0', '--group=0', '-cf', part, '.']);
    fs.renameSync(part, tar);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { tar, tag, hash, built: true };
}

// The shared folder (`dir`, what the nodes see as /lab): app/ and config/ made equal to the
// lab's files, in place (the nodes' mounts keep pointing at this folder): changed files
// copied, gone ones removed. Returns the content's hash and how many files changed.
function syncApp(dir) {
  const files = appManifest().map(([src, dst]) => [
    src,
    dst.replace(/^\/app\//, '/app/').replace(/^\/config\//, '/config/'),
  ]);
  const hash = contentHash(files);
  const want = new Set(files.map(([, dst]) => path.join(dir, dst)));
  let changed = 0;
  for (const [src, dst] of files) {
    const to = path.join(dir, dst);
    const real = fs.realpathSync(src);
    let same = false;
    try {
      same = fs.readFileSync(to).equals(fs.readFileSync(real));
    } catch {
      // new
    }
    if (same) continue;
    fs.mkdirSync(path.dirname(to), { recursive: true });
    fs.copyFileSync(real, to);
    fs.chmodSync(to, (fs.statSync(real).mode & 0o777) | 0o444);
    changed += 1;
  }
  const sweep = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) {
        sweep(p);
        if (!fs.readdirSync(p).length) fs.rmdirSync(p);
      } else if (!want.has(p)) {
        fs.rmSync(p, { force: true });
        changed += 1;
      }
    }
  };
  for (const top of ['app', 'config']) if (fs.existsSync(path.join(dir, top))) sweep(path.join(dir, top));
  fs.chmodSync(dir, 0o755);
  return { hash, changed };
}

module.exports = {
  DEPS,
  BINARIES,
  buildRuntimeTar,
  syncApp,
  runtimeManifest,
  appManifest,
  runtimeHash,
  contentHash,
  moduleClosure,
  TAGS,
  CHANGES,
  PROXY_TAG,
  RUNTIME_REPO,
};
