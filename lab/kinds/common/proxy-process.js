'use strict';

const path = require('node:path');
const { labError } = require('../../../common/errors');
const { run, ensureProgram } = require('../../programs/install');

// The local side of the proxy kinds (lab/kinds/) that are not nginx: their binary (found,
// or installed from Debian's packages when the lab runs as root, as the set-up does for
// nginx), their prefix inside the state folder, and their config check before they start.
// They run in the foreground under the deployment's pm2, so they are owned, restarted and
// stopped like the replicas (and capped the same way).

// The kind's binary: found, or installed (root, apt-get) with a line saying so, or
// LAB_ERR_KIND_MISSING with the exact command to run. A kind with no program of its own (the
// lab's node balancer runs on this Node) has none to find: null.
async function ensureBinary(kind, log = () => {}) {
  if (!kind.bin) return null;
  const found = await ensureProgram(
    { ...kind.bin, why: `--balancer/--edge-kind ${kind.flag || kind.name}` },
    log,
  ).catch((err) => {
    throw labError('LAB_ERR_KIND_MISSING', kind.name, kind.bin.name, kind.bin.package, err.detail);
  });
  return found;
}

// Where a proxy node keeps its files in a state folder: nodes/<node>/ (the nginx kinds keep
// theirs in the lab's nginx prefixes, ./nginx-process.js).
function proxyPaths(stateDir, node, kind) {
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

// A kind that runs in the foreground under the deployment's pm2, on this host (a kind's
// `host`, asked by lab/runtime/local.js; it starts as kind.local(ctx) says).
// kind.reload says how it takes a new config while it runs (replicas that came or went):
// { signal } to its process, or { command(ctx) } to run, after its config is checked.
function proxyHost(kind) {
  return Object.freeze({
    daemon: false,
    program: (log) => ensureBinary(kind, log),
    paths: (stateDir, node) => proxyPaths(stateDir, node, kind),
    check: (ctx) => checkConfig(kind, ctx),
    reload: kind.reload
      ? async (ctx, pid) => {
          await checkConfig(kind, ctx);
          if (kind.reload.signal) return process.kill(pid, kind.reload.signal);
          const { command, args } = kind.reload.command(ctx);
          const r = await run(command, args, { timeoutMs: 30000 });
          if (!r.ok) {
            const words = r.output.trim().split('\n').filter(Boolean).slice(-3).join(' ');
            throw labError('LAB_ERR_PROXY_CONFIG', kind.name, `its reload failed: ${words}`);
          }
          return null;
        }
      : null,
  });
}

module.exports = { ensureBinary, proxyPaths, checkConfig, proxyHost };
