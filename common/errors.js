'use strict';

// A flag as the user typed it: a name gets its `--`; a short form given as typed (-e) stays.
const dashed = (flag) => (String(flag).startsWith('-') ? String(flag) : `--${flag}`);

const path = require('node:path');

// The command that stops a deployment of `stateDir`, as a user would type it: the folder
// named unless it is the default one (a hint without it would miss the deployment).
const DEFAULT_STATE_DIR = path.join(__dirname, '..', '.lab');
// (`flags`: more of down's flags, e.g. --delete-data.)
function downHint(stateDir, flags = '') {
  const dir = path.resolve(stateDir || DEFAULT_STATE_DIR);
  const more = flags ? ` ${flags}` : '';
  if (dir === DEFAULT_STATE_DIR) return more ? `npm run down --${more}` : 'npm run down';
  return `npm run down -- --state-dir ${/^[\w@%+=:,./-]+$/.test(dir) ? dir : `'${dir.replace(/'/g, "'\\''")}'`}${more}`;
}

// Every error the lab raises, in one table. A code names the situation, `exit` is the CLI
// exit code (2: the user typed something wrong; 1: the run or the machine failed), and
// `message` turns the details into one sentence a user can act on.
const table = {
  LAB_ERR_USAGE: { exit: 2, message: (text) => text },
  // What a load generator refuses to run (lab/generators/index.js), before anything starts.
  LAB_ERR_GENERATOR_FLAG: {
    exit: 2,
    message: (flag, owners, generator) => `--${flag} is for ${owners}, not --generator ${generator}`,
  },
  // A study's option given to a study that does not take it (lab/commands/study.js).
  LAB_ERR_STUDY_FLAG: {
    exit: 2,
    message: (flag, owners, study) => `--${flag} is an option of the ${owners}, not of ${study}`,
  },
  LAB_ERR_FLAG_NEEDS: {
    exit: 2,
    message: (flag, needs, why) =>
      `${dashed(flag)} needs ${[].concat(needs).map(dashed).join(' or ')}${why ? `: ${why}` : ''}`,
  },
  // A flag's value the command cannot use (its parser took it): which, what was typed, why.
  LAB_ERR_FLAG_VALUE: {
    exit: 2,
    message: (flag, value, why) => `${dashed(flag)}${value === null || value === undefined ? '' : ` ${value}`}: ${why}`,
  },
  // A value its flag's own parser refused, in the parser's words ("invalid --rate=...: expected ...").
  LAB_ERR_INVALID_VALUE: { exit: 2, message: (text) => text },
  // Two flags given together that cannot be.
  LAB_ERR_FLAGS_EXCLUDE: {
    exit: 2,
    message: (a, b, why) => `${dashed(a)} and ${dashed(b)} exclude each other${why ? `: ${why}` : ''}`,
  },
  // A flag the command does not take, with the nearest it does.
  LAB_ERR_UNKNOWN_FLAG: {
    exit: 2,
    message: (given, near, help) => `unknown option ${given}${near ? `; did you mean --${near}?` : ''} ${help}`,
  },
  // A word more than the command takes (its usage follows).
  LAB_ERR_UNEXPECTED_ARG: {
    exit: 2,
    message: (word, usage) => `unexpected argument "${word}"${usage ? `\n${usage}` : ''}`,
  },
  // What the chosen engine (--engine) or this deployment cannot do, and what can.
  LAB_ERR_NOT_ON_ENGINE: { exit: 2, message: (what, detail) => `${what}: ${detail}` },
  // A folder given as a run's results (report, compare) that does not hold them.
  LAB_ERR_RESULTS_FOLDER: { exit: 2, message: (dir, why) => `${dir}: ${why}` },
  // What the lab does not do, said with what it does instead (Artillery's --count, ...).
  LAB_ERR_UNSUPPORTED: { exit: 2, message: (text) => text },
  // A results or study folder that holds something made with other settings.
  LAB_ERR_DIR_SETTINGS: { exit: 2, message: (dir, detail, wayOut) => `${dir} ${detail}; ${wayOut}` },
  // What the command needs and was not given (its usage follows).
  LAB_ERR_MISSING_ARG: { exit: 2, message: (what, usage) => `give ${what}${usage ? `\n${usage}` : ''}` },
  LAB_ERR_GENERATOR_ASK: { exit: 2, message: (ask, owners) => `${ask} needs ${owners}` },
  LAB_ERR_GENERATOR_FEATURE: {
    exit: 2,
    message: (feature, generator, owners) =>
      `the scenario uses ${feature}, which --generator ${generator} does not run; ${owners} does`,
  },
  LAB_ERR_SCRIPT_FOREIGN: {
    exit: 2,
    message: (first, more, owners) =>
      `the script uses ${first.feature} (${first.where}), which only Artillery runs: ${owners}${more > 0 ? ` (and ${more} more such)` : ''}`,
  },
  LAB_ERR_SCRIPT_UNKNOWN_FIELD: {
    exit: 2,
    message: (first, more, owners) =>
      `the script has a field the lab's engines do not know: ${first.where} (line ${first.line})${more > 0 ? ` (and ${more} more)` : ''}; correct it, or have Artillery run the file as it is (it ignores what it does not know): ${owners}`,
  },
  LAB_ERR_CONFIG: {
    exit: 1,
    message: (name, value, expected) => `invalid ${name}=${JSON.stringify(value)}: expected ${expected}`,
  },
  LAB_ERR_UNKNOWN_NAME: {
    exit: 2,
    message: (kind, value, valid, suggestion) =>
      `unknown ${kind} "${value}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}; valid: ${valid.join(', ')}`,
  },
  LAB_ERR_PORT_IN_USE: {
    exit: 1,
    message: (port, role) =>
      `port ${port} (${role}) is already in use: stop what listens there or choose another base with --port-base / LAB_PORT_BASE`,
  },
  // An address to listen on that is not one of this machine's (EADDRNOTAVAIL): not a port
  // someone holds. (Seen on the VM cluster, where LAB_HOST is the manager VM's address.)
  LAB_ERR_NOT_LOCAL: {
    exit: 2,
    message: (host, port, role) =>
      `cannot listen on ${host}:${port} (${role}): ${host} is not an address of this machine (--host / LAB_HOST names where the deployment answers)`,
  },
  // A port the user chose (a flag's value) that something else holds: their choice to change.
  LAB_ERR_PORT_TAKEN: {
    exit: 2,
    message: (port, role, flagHint) => `port ${port} (${role}) is already in use: choose another with ${flagHint}`,
  },
  LAB_ERR_NGINX_MISSING: {
    exit: 1,
    message: () =>
      'nginx is not installed: run `npm run setup` as root, or `sudo apt-get install -y nginx libnginx-mod-stream`',
  },
  // A balancer or edge kind (lab/kinds/) whose program is not installed.
  LAB_ERR_KIND_MISSING: {
    exit: 1,
    message: (kind, bin, pkg, detail) =>
      `${kind} needs ${bin}, which is not installed${detail ? ` (${detail})` : ''}: ${installHint(pkg)}`,
  },
  LAB_ERR_PROXY_CONFIG: {
    exit: 1,
    message: (kind, detail) => `the rendered ${kind} config was rejected by its own check: ${detail}`,
  },
  LAB_ERR_NGINX_CONFIG: {
    exit: 1,
    message: (detail) => `the rendered nginx config was rejected by nginx -t: ${detail}`,
  },
  LAB_ERR_ALREADY_UP: {
    exit: 1,
    message: (name, dir) => `a deployment (${name}) is already up in ${dir}: run \`${downHint(dir)}\` first`,
  },
  LAB_ERR_NOT_UP: { exit: 1, message: () => 'no deployment is up: start one with `npm run deploy -- <deployment>`' },
  LAB_ERR_UNHEALTHY: { exit: 1, message: (what, detail) => `${what} did not become healthy: ${detail}` },
  // Your service (--app) did not start: its own doing (its code, its PORT), yours to fix.
  // (Exit 1: a deployment that did not come up, once things ran; 2 is for what is refused
  // before anything starts.)
  LAB_ERR_APP: { exit: 1, message: (what, detail) => `your service ${what} did not start: ${detail}` },
  LAB_ERR_PROCESS: { exit: 1, message: (what, detail) => `${what} failed: ${detail}` },
  // A child run's job (lab/run/job.js) its command cannot take: the lab's own mistake, never
  // the user's (what the user typed was checked by the parent).
  LAB_ERR_JOB: { exit: 1, message: (why) => `a child run's job does not fit its command: ${why}` },
  LAB_ERR_ARTILLERY: { exit: 1, message: (detail) => `Artillery failed: ${detail}` },
  LAB_ERR_SCENARIO_FILE: { exit: 2, message: (file, detail) => `malformed scenario file ${file}: ${detail}` },
  LAB_ERR_ENGINE: {
    exit: 1,
    message: (detail) =>
      `the container engine is not usable: ${detail}. Install it with \`sudo apt-get install -y docker.io docker-compose\` (or Docker Desktop), start it, or point DOCKER_HOST at a running one`,
  },
  LAB_ERR_NOT_OURS: {
    exit: 2,
    message: (what, dir, why, advice = 'choose a new or empty folder') =>
      `${what} ${dir}: ${why}; the lab only writes into and deletes what it created, so ${advice}`,
  },
  // A folder the lab renders into a config (the state folder, the checkout) that no config
  // can name as it is.
  LAB_ERR_PATH: {
    exit: 2,
    message: (p, why) => `the path ${JSON.stringify(p)} cannot be used: ${why}; move it, or give another --state-dir`,
  },
  // The entry's TLS (--tls): a certificate or key that cannot be used, or a kind that cannot.
  LAB_ERR_TLS: { exit: 2, message: (detail) => `--tls: ${detail}` },
  // Replicas that cannot come and go (--autoscale, a rollout, npm run scale) on a deployment.
  LAB_ERR_ELASTIC: { exit: 2, message: (detail) => `its replicas cannot change while it runs: ${detail}` },
  // A --run-dir of the lab's that holds something other than a capacity search.
  LAB_ERR_NOT_A_SEARCH: {
    exit: 2,
    message: (dir, what) =>
      `--run-dir ${dir} holds ${what}, not a capacity search: nothing of it is deleted; give a new or empty folder, or another search's`,
  },
  LAB_ERR_STATE: {
    exit: 1,
    message: (file, detail) => `the lab's state file ${file} is unreadable (${detail})`,
  },
  LAB_ERR_RESULTS: {
    exit: 1,
    message: (file, detail) => `cannot read ${file}: ${detail} (LAB_DEBUG=1 shows where it failed)`,
  },
  // Swarm's routing mesh is IPVS in the kernel.
  LAB_ERR_NO_IPVS: {
    exit: 1,
    message: () =>
      "swarm's routing mesh needs IPVS (the ip_vs module) in the kernel, and this one has none (/proc/sys/net/ipv4/vs is missing): its virtual IPs and published ports would not answer here; use --balancer nginx or node, or a swarm whose kernels have IPVS",
  },
  // Many held connections (signaling) need as many open files in each process.
  LAB_ERR_FD_LIMIT: {
    exit: 1,
    message: (needed, have, note) =>
      `holding these connections needs ${needed} open files a process; this one may open ${have}${note ? `: ${note}` : ''}`,
  },
  // The lab's own Node (package.json's dependencies.node) is not installed, and the Node that
  // started it is too old for what it runs (Artillery 2.0.34 needs 22.18).
  LAB_ERR_NODE: {
    exit: 1,
    message: (have, pinned, oldest) =>
      `the lab runs on Node ${pinned}, from its lock file, and it is not installed; Node ${have}, which started it, is too old for Artillery 2.0.34 (${oldest} or newer): run \`npm ci\` in the lab's folder (it installs Node ${pinned} into node_modules/.bin), then start the lab with \`npm run\``,
  },
  // --node: a version the service under test should run on that the lab cannot give it.
  LAB_ERR_NODE_VERSION: {
    exit: 2,
    message: (spec, why) => `--node ${spec}: ${why}`,
  },
  // Caps (--cap) need a cgroup filesystem the lab can write: root, v1 or v2.
  LAB_ERR_CGROUPS: {
    exit: 1,
    message: (detail) => `per-node caps are unavailable: ${detail}`,
  },
  LAB_ERR_TOO_MANY: {
    exit: 2,
    message: (n, cores, limit) =>
      `${n} service processes on ${cores} core(s) is above the lab's limit of ${limit} (8 per core): add --force if you mean it`,
  },
  // One command at a time per folder (lab/ownership/lock.js).
  LAB_ERR_LOCKED: {
    exit: 2,
    message: (what, dir, holder) =>
      `${what} ${dir} is in use by ${holder}: wait for it to finish, stop it (Ctrl-C in its terminal), or use another folder`,
  },
  // The VM cluster (lab/cluster/): what failed, and what to do when the machine cannot.
  LAB_ERR_CLUSTER: { exit: 1, message: (detail) => `the cluster: ${detail}` },
  // A data store of the deployment (--with: lab/stores/) that could not be made or started.
  LAB_ERR_STORE: { exit: 1, message: (store, detail) => `${store} (--with) failed: ${detail}` },
  // Data an earlier deploy kept (--keep-data) that this deploy would have started over.
  LAB_ERR_KEPT_DATA: {
    exit: 2,
    message: (kept, stateDir) =>
      `${kept.map((k) => `${k.name}'s data`).join(' and ')}, kept by an earlier deploy (--keep-data), ${kept.length > 1 ? 'are' : 'is'} in ${kept.map((k) => k.dir).join(' and ')}: deploy with --keep-data to use ${kept.length > 1 ? 'them' : 'it'}, or delete ${kept.length > 1 ? 'them' : 'it'} first with \`${downHint(stateDir, '--delete-data')}\``,
  },
  // Your service's own set-up (--app-setup) failed: its doing, yours to fix.
  LAB_ERR_APP_SETUP: {
    exit: 1,
    message: (cmd, detail) => `your service's set-up (--app-setup "${cmd}") failed: ${detail}`,
  },
  // Files the lab built for another platform (npm run choose) that their schema refuses.
  LAB_ERR_MANIFEST: {
    exit: 1,
    message: (detail) =>
      `the manifests the lab built are not valid against their schemas (a defect of the lab's; nothing was written): ${detail}`,
  },
  LAB_ERR_INTERRUPTED: { exit: 130, message: (signal) => `interrupted by ${signal}` },
  // The library's options (lab/api): a value no flag could be given as (an object, a
  // function), named as the caller gave it.
  LAB_ERR_OPTION_TYPE: {
    exit: 2,
    message: (command, option, expected) => `lab.${command}({ ${option} }): expected ${expected}`,
  },
  // A library run that ended with no answer to give (no JSON on its stdout): its last words.
  LAB_ERR_NO_ANSWER: {
    exit: 1,
    message: (command, code, tail) =>
      `lab.${command}() ended (exit ${code}) with no answer${tail ? `; its last words: ${tail}` : ''}`,
  },
};

// How to install a Debian package, for who runs the lab: as root, apt-get itself (the set-up
// installs the optional ones with `npm run setup`); otherwise sudo. (As root it once said "or
// run the lab as root, which installs it".)
function installHint(pkg) {
  return process.getuid?.() === 0
    ? `run \`apt-get install -y ${pkg}\` (or \`npm run setup\`, which installs it with the rest)`
    : `run \`sudo apt-get install -y ${pkg}\` (or run the lab as root, which installs it)`;
}

class LabError extends Error {
  constructor(code, ...details) {
    const entry = table[code];
    if (!entry) throw new Error(`unknown error code ${code}`);
    super(entry.message(...details));
    this.name = 'LabError';
    this.code = code;
    this.exitCode = entry.exit;
  }
}

function labError(code, ...details) {
  return new LabError(code, ...details);
}

module.exports = { LabError, labError, downHint, installHint, codes: Object.freeze(Object.keys(table)) };
