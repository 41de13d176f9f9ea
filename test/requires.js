'use strict';

const { spawnSync } = require('node:child_process');

// What a test needs of the machine, declared once: how to tell, and whether the project's own
// set-up (`scripts/setup.sh test`, which `npm test` runs first) installs it when it runs as
// root. `onlyWith(need)` is `test` where the machine has it; where it has not, the test is
// skipped, counted in the run's last line (`N skipped`) and named with the reason, never
// passed in silence; and where the set-up ran as root and would have installed it, the test
// fails instead: a machine the project set up must have what the project installs.
const asRoot = () => process.getuid?.() === 0;
const NEEDS = {
  chromium: {
    has: () => require('../lab/report/chromium').available(),
    why: () => require('../lab/report/chromium').SKIP_REASON,
    installs: 'chromium',
  },
  // Control groups (v1 or v2, lab/runtime/cgroups.js), to cap a process's CPU and memory: as
  // root on a kernel that mounts them. The one rule for a capped test: it runs only with them
  // (onlyWith('cgroups')), skipped and counted without; never failed off-root, never run uncapped.
  cgroups: {
    has: () => Boolean(require('../lab/runtime/cgroups').detect()) && asRoot(),
    why: () => (asRoot() ? 'no cgroup filesystem (v1 or v2) mounted on this kernel' : 'capping processes needs root'),
    installs: null,
  },
  root: { has: asRoot, why: () => 'needs root (the set-up installs with apt-get)', installs: null },
  carbon: {
    has: () =>
      Boolean(require('../lab/monitoring/carbon').findCarbon()) &&
      require('node:fs').existsSync('/usr/bin/whisper-fetch'),
    why: () => "Graphite's carbon is not installed (apt-get install graphite-carbon python3-whisper)",
    installs: 'graphite-carbon python3-whisper',
  },
  'docker-compose': {
    has: () => spawnSync('docker-compose', ['version'], { encoding: 'utf8' }).status === 0,
    why: () => 'docker-compose is not installed (apt-get install docker-compose)',
    installs: 'docker-compose',
  },
};

const cache = {};
function status(need) {
  const n = NEEDS[need];
  if (!n) throw new Error(`unknown need ${need}`);
  cache[need] ??= n.has();
  return cache[need];
}

// -> a `test`-like function for what needs `need`: test, a skip that says why, or a failure.
function onlyWith(need) {
  if (status(need)) return test;
  const n = NEEDS[need];
  const why = n.why();
  if (n.installs && asRoot()) {
    return (name, _fn, timeout) =>
      test(
        name,
        () => {
          throw new Error(
            `${why}, though the set-up runs as root and installs it (${n.installs}): run \`bash scripts/setup.sh test\` and see .lab-setup.log`,
          );
        },
        timeout,
      );
  }
  return (name, fn) => {
    process.stderr.write(`skipped "${name}": ${why}\n`);
    return test.skip(`${name} [skipped: ${why}]`, fn);
  };
}

// A program of the lab's kinds (HAProxy, Caddy, Varnish...), which the set-up installs.
function onlyWithProgram(bin, pkg) {
  const need = `program:${bin}`;
  NEEDS[need] ??= {
    has: () => Boolean(require('../lab/programs/install').whereIs(bin)),
    why: () => `${bin} is not installed (apt-get install ${pkg})`,
    installs: pkg,
  };
  return onlyWith(need);
}

module.exports = { onlyWith, onlyWithProgram, has: status, NEEDS };
