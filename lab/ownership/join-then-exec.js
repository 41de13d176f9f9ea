'use strict';

// How the lab starts a process inside its own control groups (lab/runtime/cgroups.js makes
// them): a shell joins the groups, then becomes the program, so the process is born there
// and so are its children. Joining later would not do: memory a process touched before
// joining stays charged to its old group, and Node's start-up alone is ~40 MiB. Used by the
// replicas (lab/runtime/local.js) and nginx (lab/kinds/common/nginx-process.js) alike.
const JOIN_THEN_EXEC = 'IFS=:; for f in $LAB_CGROUP_PROCS; do echo $$ > "$f" || exit 97; done; exec "$0" "$@"';

// How to start `bin args` inside the groups whose cgroup.procs files are `procs`: a command,
// its arguments and the environment variable the shell reads.
function joinThenExec(procs, bin, args = []) {
  return { command: '/bin/sh', args: ['-c', JOIN_THEN_EXEC, bin, ...args], env: { LAB_CGROUP_PROCS: procs.join(':') } };
}

module.exports = { joinThenExec };
