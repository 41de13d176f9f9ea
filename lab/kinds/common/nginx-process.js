'use strict';

const fs = require('node:fs');
const { execFile } = require('node:child_process');
const { labError } = require('../../../common/errors');
const { isAlive, stopTree, sleep } = require('../../ownership/procs');
const { cmdline } = require('../../ownership/identity');
const { joinThenExec } = require('../../ownership/join-then-exec');

// nginx as the lab's own process: its own prefix, config, pid file and error log, all in the
// run directory. LAB_NGINX names another binary.
function findNginx(env = process.env) {
  const candidates = env.LAB_NGINX
    ? [env.LAB_NGINX]
    : [...(env.PATH || '').split(':').map((d) => `${d}/nginx`), '/usr/sbin/nginx', '/usr/local/sbin/nginx'];
  const found = candidates.find((p) => {
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return fs.statSync(p).isFile();
    } catch {
      return false;
    }
  });
  if (!found) throw labError('LAB_ERR_NGINX_MISSING');
  return found;
}

function run(bin, args, env = process.env) {
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: 15000, env }, (err, stdout, stderr) =>
      resolve({ ok: !err, output: `${stderr}${stdout}` }),
    );
  });
}

const argsFor = ({ prefix, confFile, errorLog }) => ['-p', prefix, '-e', errorLog, '-c', confFile];

async function testConfig(bin, paths) {
  const r = await run(bin, ['-t', '-q', ...argsFor(paths)]);
  if (!r.ok) throw labError('LAB_ERR_NGINX_CONFIG', r.output.trim().split('\n').slice(-2).join(' '));
}

// nginx writes its title over its environment area, so it carries no token (see
// lab/ownership/scan.js). Its proof of ownership is its own pid file in the lab's prefix
// naming a process whose command line is nginx's master with that very prefix.
const isMasterOf = (pid, paths) => {
  const cmd = cmdline(pid) || '';
  return cmd.startsWith('nginx: master process') && cmd.includes(` -p ${paths.prefix} `);
};

function ownedNginx(paths) {
  try {
    const pid = Number(fs.readFileSync(paths.pidFile, 'utf8').trim());
    return pid && isAlive(pid) && isMasterOf(pid, paths) ? pid : null;
  } catch {
    return null;
  }
}

// Starts the master (it daemonizes) and returns its pid, read back from the pid file once
// the master has set its title (the pid file comes a moment before it), so that the
// command line recorded with its identity is the one it keeps.
// join: the cgroup.procs files of its caps, if any: a shell joins them and becomes nginx, so
// the master and the workers it forks are born capped (lab/runtime/cgroups.js).
async function startNginx(bin, paths, { join = null } = {}) {
  const r = join
    ? await (({ command, args, env }) => run(command, args, { ...process.env, ...env }))(
        joinThenExec(join, bin, argsFor(paths)),
      )
    : await run(bin, argsFor(paths));
  if (!r.ok) throw labError('LAB_ERR_PROCESS', 'starting nginx', r.output.trim().split('\n').pop());
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    const pid = ownedNginx(paths);
    if (pid) return pid;
    await sleep(50);
  }
  throw labError('LAB_ERR_PROCESS', 'starting nginx', `no nginx master named in ${paths.pidFile}`);
}

// SIGTERM is nginx's fast shutdown: a stop should not wait on clients' long requests.
function stopNginx(pid) {
  return stopTree(pid, { signal: 'SIGTERM', timeoutMs: 5000 });
}

// Where the lab keeps a local deployment's nginx inside its state folder: the entry's in
// nginx/, each caching edge's in nginx/<edge>/ (a prefix of its own, so each master's proof
// of ownership names its own pid file).
function nginxPaths(stateDir, node = 'nginx') {
  const prefix = node === 'nginx' ? `${stateDir}/nginx` : `${stateDir}/nginx/${node}`;
  return {
    prefix,
    confFile: `${prefix}/nginx.conf`,
    pidFile: `${prefix}/nginx.pid`,
    errorLog: `${prefix}/error.log`,
    accessLog: `${prefix}/access.log`,
    cacheDir: `${prefix}/cache`,
    tempDir: `${prefix}/temp`,
  };
}

// Every nginx master of a state folder still running: the entry's and each edge's.
function ownedNginxAll(stateDir) {
  let names = [];
  try {
    names = fs
      .readdirSync(`${stateDir}/nginx`, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
  } catch {
    // no nginx folder
  }
  return ['nginx', ...names].map((n) => ownedNginx(nginxPaths(stateDir, n))).filter(Boolean);
}

// The nginx kinds on this host (a kind's `host`, asked by lab/runtime/local.js): nginx's
// program, its prefix in the state folder, its own config test, and a master the lab starts
// as a daemon (not under pm2), stops, and finds again by its pid files.
const NGINX_HOST = Object.freeze({
  daemon: true,
  program: async () => findNginx(),
  paths: (stateDir, node) => nginxPaths(stateDir, node.name),
  check: (ctx) => testConfig(ctx.bin, ctx.paths),
  start: (ctx, { join = null } = {}) => startNginx(ctx.bin, ctx.paths, { join }),
  stop: (pid) => stopNginx(pid),
  // Its config rendered again (replicas that came or went): checked, then SIGHUP to its master,
  // which starts workers on the new config and lets the old ones finish their requests.
  reload: async (ctx, pid) => {
    await testConfig(ctx.bin, ctx.paths);
    process.kill(pid, 'SIGHUP');
  },
  owned: (stateDir) => ownedNginxAll(stateDir),
});

module.exports = { findNginx, testConfig, startNginx, stopNginx, ownedNginx, ownedNginxAll, nginxPaths, NGINX_HOST };
