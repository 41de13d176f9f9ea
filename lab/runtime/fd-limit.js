'use strict';

const fs = require('node:fs');
const { execFileSync } = require('node:child_process');
const { labError } = require('../../common/errors');

// Open-file limits for runs that hold many connections (signaling: one descriptor a
// participant in the generator, one in the service, two in nginx). Node cannot call
// setrlimit, so the lab raises its own limit with util-linux's prlimit; every process it
// starts afterwards (pm2's daemon and its apps, nginx, the generator) inherits it. Only the
// lab's own process is touched.
function readLimit(pid = 'self') {
  const line = fs
    .readFileSync(`/proc/${pid}/limits`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('Max open files'));
  const [soft, hard] = line
    .split(/\s{2,}/)
    .slice(1, 3)
    .map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  return { soft, hard };
}

// Raises this process's soft limit to `wanted` (and the hard one too when root). Returns
// { soft, hard, raised, note }: note says why it stays lower, when it does.
function raiseOwnFdLimit(wanted) {
  const before = readLimit();
  if (before.soft >= wanted) return { ...before, raised: false, note: null };
  const root = process.getuid && process.getuid() === 0;
  const to = root ? wanted : Math.min(wanted, before.hard);
  if (to <= before.soft) {
    return {
      ...before,
      raised: false,
      note: `the open-file limit is ${before.soft} (hard ${before.hard}); raise it with \`ulimit -n ${wanted}\` as root`,
    };
  }
  const set = (soft, hard) => {
    try {
      execFileSync('prlimit', ['--pid', String(process.pid), `--nofile=${soft}:${hard}`], { stdio: 'ignore' });
      return null;
    } catch (err) {
      return err.code === 'ENOENT' ? 'no prlimit here: apt-get install util-linux' : 'prlimit was refused';
    }
  };
  let failed = set(to, root ? to : before.hard);
  // Root without CAP_SYS_RESOURCE (a container, a sandbox) may not pass the hard limit.
  if (failed && root && before.hard > before.soft) failed = set(Math.min(wanted, before.hard), before.hard) && failed;
  if (failed && readLimit().soft === before.soft) {
    return {
      ...before,
      raised: false,
      note: `${failed}; the hard open-file limit is ${before.hard} (raising it needs CAP_SYS_RESOURCE: \`ulimit -n ${wanted}\` in a root shell that has it)`,
    };
  }
  const after = readLimit();
  return {
    ...after,
    raised: after.soft > before.soft,
    note: after.soft < wanted ? `the hard limit is ${after.hard}` : null,
  };
}

// Before a run that holds `connections` at once: raises the limit (the generator, the
// service and a non-root nginx each hold up to two descriptors a connection) or stops with
// LAB_ERR_FD_LIMIT before anything starts. Returns the limit in force, and logs a raise.
function ensureFdsFor(connections, log = () => {}) {
  const needed = connections * 2 + 2000;
  const got = raiseOwnFdLimit(needed);
  if (got.raised) log(`raised the open-file limit to ${got.soft} for ${connections} connections`);
  // Below twice the connections nginx (not root) may run short, but the generator and the
  // service (one a connection) still hold them all: only that is refused.
  if (got.soft < connections + 1000) throw labError('LAB_ERR_FD_LIMIT', connections + 1000, got.soft, got.note);
  return got.soft;
}

module.exports = { readLimit, raiseOwnFdLimit, ensureFdsFor };
