'use strict';

const path = require('node:path');
const { pidFileFor } = require('./pm2-pid');
const { joinThenExec } = require('../ownership/join-then-exec');
const { ROOT } = require('../paths');

// A capped app is started by a shell that joins its groups and becomes Node, with no
// pm2 wrapper in between (interpreter none): it is born capped, and so is a restart.
// `script` is one of the lab's Node programs, or `command` a program of a proxy kind.
// (`script` relative to the lab's root or absolute; `nodeArgs`: Node's own options; `node`:
// the Node that runs the script, the lab's own unless --node gave the service another.)
function pm2AppOf(state, joins, logs) {
  return (
    name,
    script,
    { args = [], env = {}, command = null, nodeArgs = [], cwd = ROOT, node = null, ...extra } = {},
  ) => {
    const file = script && path.resolve(ROOT, script);
    const cmd = command || node || process.execPath;
    const argv = command ? args : [...nodeArgs, file, ...args];
    const run = joins[name]
      ? (({ command: c, args: a, env: e }) => ({ script: c, args: a, env: { ...env, ...e }, interpreter: 'none' }))(
          joinThenExec(joins[name], cmd, argv),
        )
      : { ...pm2Exec(cmd, argv), env, interpreter: 'none' };
    return {
      name,
      ...run,
      cwd,
      autorestart: true,
      max_restarts: 50,
      restart_delay: 200,
      // The lab's own programs drain for at most 3 s, below this (a replica's is longer:
      // lab/runtime/replica-start.js).
      kill_timeout: 5000,
      out_file: path.join(logs, `${name}.out.log`),
      error_file: path.join(logs, `${name}.err.log`),
      pid_file: pidFileFor(state.pm2Home, name),
      ...extra,
    };
  };
}

// What pm2 runs for `bin argv`: pm2 turns a script path with a space in it into `bash -c
// <path>` (it takes it for a command line), so a program is always pm2's script, never a
// file of the lab's or yours, whose folder may have a space; a program whose own path has
// one goes through /bin/sh.
function pm2Exec(bin, argv) {
  if (!/\s/.test(bin)) return { script: bin, args: argv };
  return { script: '/bin/sh', args: ['-c', 'exec "$0" "$@"', bin, ...argv] };
}

module.exports = { pm2AppOf, pm2Exec };
