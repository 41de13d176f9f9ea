'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { nodeCommand } = require('./words');

// A user's own service (--app DIR), resolved and checked once, before anything starts. The
// contract (docs/your-service.md): it listens on PORT from its environment; it starts with
// its package.json `start` script, else `node <main>`, or with --app-cmd; its dependencies
// are installed from its own lock file when missing. Nothing else is asked of it.
//
// Returns a frozen { dir, name, run, health, install, hash }:
//   run: { node: { entry (absolute), execArgv, args } } for a plain Node command, which the
//        lab can also run as node:cluster workers; else { shell: 'the line' }, one process.
//   health: the path whose answer below 500 says ready, or null: any HTTP answer does.
//   install: 'ci' (a lock file), 'install' (none) or null (nothing to install).
// (`flag`: the flag that named the folder, said in every refusal: --app, or --app-next for a
// rollout's new version.)
function resolveApp({ dir, cmd = null, health = null, setupTimeoutS = null, startTimeoutS = null, flag = 'app' }) {
  const abs = path.resolve(dir);
  let stat;
  try {
    stat = fs.statSync(abs);
  } catch {
    throw labError('LAB_ERR_FLAG_VALUE', flag, dir, 'no such folder');
  }
  if (!stat.isDirectory()) throw labError('LAB_ERR_FLAG_VALUE', flag, dir, 'not a folder (the folder of your service)');
  const pkgFile = path.join(abs, 'package.json');
  let pkg = null;
  if (fs.existsSync(pkgFile)) {
    try {
      pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
    } catch (err) {
      throw labError('LAB_ERR_FLAG_VALUE', flag, dir, `its package.json is not valid JSON (${err.message})`);
    }
  }
  if (cmd !== null && !cmd.trim()) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'app-cmd',
      null,
      'empty; give the line that starts your service, like "node server.js"',
    );
  }
  const line = cmd ?? startLine(pkg, abs);
  if (!line) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      flag,
      dir,
      pkg
        ? 'its package.json has no "start" script and no "main", and there is no index.js: add one, or say how it starts with --app-cmd "node server.js"'
        : 'no package.json, so the lab cannot tell how it starts: give --app-cmd "node server.js"',
    );
  }
  const node = nodeCommand(line);
  let run;
  if (node) {
    const entry = path.resolve(abs, node.entry);
    const found = [entry, `${entry}.js`].find((f) => fs.existsSync(f) && fs.statSync(f).isFile());
    if (!found) throw labError('LAB_ERR_FLAG_VALUE', flag, dir, `"${line}" starts ${node.entry}, which is not there`);
    run = { node: { ...node, entry: found } };
  } else run = { shell: line };
  if (health !== null && !/^\/[^\s]*$/.test(health)) {
    throw labError('LAB_ERR_FLAG_VALUE', 'health', health, 'a path starting with /, like /health');
  }
  const deps = pkg ? Object.keys({ ...pkg.dependencies }).length : 0;
  const lock = ['package-lock.json', 'npm-shrinkwrap.json'].some((f) => fs.existsSync(path.join(abs, f)));
  const app = {
    dir: abs,
    name: (pkg && typeof pkg.name === 'string' && pkg.name) || path.basename(abs),
    line,
    run: Object.freeze(run),
    health,
    install: deps ? (lock ? 'ci' : 'install') : null,
    // How long its set-up (--app-setup-timeout) and each replica's start (--app-start-timeout)
    // may take; null: the lab's defaults (lab/app/setup.js, lab/runtime/local.js).
    setupTimeoutS,
    startTimeoutS,
  };
  // The hash names an image: worked out only when an image is built or named (compose,
  // swarm, the cluster), never for --plan or a local deployment.
  let hash = null;
  Object.defineProperty(app, 'hash', { enumerable: true, get: () => (hash ??= contentHash(abs)) });
  return Object.freeze(app);
}

// The start line a package.json gives: its `start` script, else `node <main>`, else
// `node index.js` when there is one (npm's own default for `main`).
function startLine(pkg, dir) {
  if (!pkg) return null;
  if (pkg.scripts?.start) return pkg.scripts.start;
  if (typeof pkg.main === 'string') return `node ${pkg.main}`;
  if (fs.existsSync(path.join(dir, 'index.js'))) return 'node index.js';
  return null;
}

// A short hash of the app's files (not node_modules or .git): what names its container
// image, so a changed app is built again and an unchanged one is not. Each file's name, size
// and modification time, never its contents: reading them took 27 s and 1.6 GB for a
// 1.5 GB file of a user's folder, and failed past 2 GiB.
function contentHash(dir) {
  const h = crypto.createHash('sha256');
  const walk = (d, rel) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (['node_modules', '.git'].includes(e.name)) continue;
      const p = path.join(d, e.name);
      const r = path.join(rel, e.name);
      if (e.isDirectory()) walk(p, r);
      else if (e.isFile()) {
        const st = fs.statSync(p, { bigint: true });
        h.update(`${r}\0${st.size}\0${st.mtimeNs}\0`);
      }
    }
  };
  walk(dir, '');
  return h.digest('hex').slice(0, 12);
}

module.exports = { resolveApp, startLine };
