'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');

// The lab runs on the Node its lock file pins (package.json's dependencies.node: the npm
// registry's `node` package, installed into node_modules/.bin, which `npm run` puts first on
// the PATH), so that every process it starts (pm2, the generators, the service) runs on it
// whatever Node the machine has. Started by another Node (`node lab/cli` outside npm run), it
// runs itself again on the pinned one. LAB_NODE=any keeps the Node that started it.
const ROOT = path.join(__dirname, '..', '..');
const PKG = require('../../package.json');
const PINNED = PKG.dependencies.node;
// (Found as Node finds a package from the lab's folder: in its own node_modules, or in a
// project's above it where npm hoisted it.)
const BINARY = (() => {
  try {
    return path.join(path.dirname(require.resolve('node/package.json', { paths: [ROOT] })), 'bin', 'node');
  } catch {
    return path.join(ROOT, 'node_modules', 'node', 'bin', 'node');
  }
})();
// The oldest Node the lab's parts run on (Artillery 2.0.34's floor): package.json's engines,
// its one definition (">=22.18").
const OLDEST = PKG.engines.node.replace(/^>=/, '').split('.').map(Number);

const older = (version, [major, minor]) => {
  const [a, b] = version.split('.').map(Number);
  return a < major || (a === major && b < minor);
};

// What to do for a start on `version`: 'run' here, or { again: binary } on the pinned Node;
// throws LAB_ERR_NODE when the pinned one is missing and this one is too old.
function decide(version = process.versions.node, { binary = BINARY, env = process.env } = {}) {
  if (version === PINNED || env.LAB_NODE === 'any') return 'run';
  if (fs.existsSync(binary)) return { again: binary };
  if (older(version, OLDEST)) throw labError('LAB_ERR_NODE', version, PINNED, OLDEST.join('.'));
  return 'run';
}

// Runs `script argv` on `binary`, in a session of its own, so that a signal reaches it once:
// this process passes on each it receives (Ctrl-C in the terminal reaches this one, the
// foreground), and ends with the child's exit (128 + its signal's number when a signal ended it).
function runAgain(binary, script, argv) {
  const child = spawn(binary, [script, ...argv], { stdio: 'inherit', detached: true });
  for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => {
    process.exit(code ?? 128 + (require('node:os').constants.signals[signal] || 0));
  });
}

module.exports = { decide, runAgain, PINNED, OLDEST };
