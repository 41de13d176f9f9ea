'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../helper');

// .ci/run's end as CI reads it, with npm, apt-cache and the set-up stood in for (nothing
// runs): every suite's counts added up in the last line, `N passed, N failed, N skipped`, each
// failing test named just before it (test-output/failures-*.txt), and the exit code. (Its
// failures loop once reused the failed count's name: the last line read "1677 passed,
// test-output/failures-*.txt failed, 0 skipped", and CI could not read it.) The container and
// cluster suites run after npm test, the container suite nested in the cluster's life: each
// stand-in says what it found of the other.
function ciRun({ failures = false, leftover = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-run-'));
  fs.mkdirSync(path.join(dir, '.ci'));
  fs.copyFileSync(path.join(ROOT, '.ci', 'run'), path.join(dir, '.ci', 'run'));
  fs.mkdirSync(path.join(dir, 'scripts'));
  fs.writeFileSync(path.join(dir, 'scripts', 'setup.sh'), 'echo "set-up $1" >> test-output/setups.txt\n');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const write = (name, body) => fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  // npm test: 10 passed (and one failed, named, when asked); each side suite: 5 passed, its
  // line where the summary reporter writes it under LAB_TEST_SUITE.
  write(
    'npm',
    [
      'mkdir -p test-output',
      'if [ "$1" = test ]; then',
      '  echo "first, cache ${LAB_CLUSTER_CACHE:-none}" > test-output/npm-test-saw.txt',
      `  echo "10 passed, ${failures ? 1 : 0} failed, 0 skipped" > test-output/summary.txt`,
      failures ? "  echo 'test/a.e2e.test.js › it holds: Expected: 3' > test-output/failures-e2e.txt" : '  :',
      `  exit ${failures ? 1 : 0}`,
      'fi',
      'name=${2#test:}',
      // (The container suite: after npm test, with the cluster up, which it says by the file
      // LAB_CI_CLUSTER_UP names.)
      'if [ "$name" = containers ] && [ -f test-output/summary-unit.txt ]; then',
      '  up=no; [ -f test-output/ci-cluster-up ] && up=yes',
      '  echo "after npm test, cluster up: $up, cache $LAB_CLUSTER_CACHE" > test-output/containers-saw.txt',
      'fi',
      // (The cluster suite: up, then down only once the file LAB_CI_CLUSTER_DOWN_AFTER names
      // is there, 10 s at most; what it saw then.)
      'if [ "$name" = cluster ]; then',
      '  touch "$LAB_CI_CLUSTER_UP"',
      '  for i in $(seq 100); do [ -f "$LAB_CI_CLUSTER_DOWN_AFTER" ] && break; sleep 0.1; done',
      '  ended=no; [ -f test-output/summary-containers.txt ] && ended=yes',
      '  echo "down once the containers ended: $ended" > test-output/cluster-saw.txt',
      'fi',
      leftover ? '[ "$name" = cluster ] && echo "  pid 1 (by token): qemu" > test-output/leftovers-cluster.txt' : ':',
      'echo "5 passed, 0 failed, 0 skipped" > test-output/summary-$name.txt',
    ].join('\n'),
  );
  write('apt-cache', 'echo "  Candidate: 1.0"');
  write('id', 'echo 0');
  const r = spawnSync('bash', ['.ci/run'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, LAB_CLUSTER_CACHE: undefined },
  });
  const read = (f) => {
    try {
      return fs.readFileSync(path.join(dir, 'test-output', f), 'utf8').trim();
    } catch {
      return null;
    }
  };
  const seen = {
    npmTest: read('npm-test-saw.txt'),
    containers: read('containers-saw.txt'),
    cluster: read('cluster-saw.txt'),
    setups: read('setups.txt'),
  };
  fs.rmSync(dir, { recursive: true, force: true });
  return { code: r.status, lines: r.stdout.trim().split('\n'), seen };
}

test('.ci/run ends with every suite added up in one line, the exit 0 when all passed', () => {
  const r = ciRun();
  expect(r.lines.at(-1)).toBe('20 passed, 0 failed, 0 skipped');
  expect(r.lines.filter((l) => l.startsWith('failed: '))).toEqual([]);
  expect(r.code).toBe(0);
  // The set-ups first, one at a time; then npm test; then the container suite inside the
  // cluster suite's life (the cluster up before it starts, down after it ends), the cluster's
  // image cache named to those suites only (npm test's own `cluster down --purge` tests once
  // purged it).
  expect(r.seen).toEqual({
    npmTest: 'first, cache none',
    containers: 'after npm test, cluster up: yes, cache /var/cache/node-deploy-lab/cluster',
    cluster: 'down once the containers ended: yes',
    setups: 'set-up test\nset-up containers\nset-up cluster',
  });
});

// A failure named just before the last line, and exit 1: a failing test (its suite's
// failures file), and a process a side suite's teardown had to stop (one failure of that suite).
test.each([
  ['a failing test', { failures: true }, 'failed: test/a.e2e.test.js › it holds: Expected: 3'],
  [
    "a process a side suite's teardown stopped",
    { leftover: true },
    'failed: cluster leftovers:   pid 1 (by token): qemu',
  ],
])('.ci/run names %s just before its last line, and exits 1', (_what, options, line) => {
  const r = ciRun(options);
  expect(r.lines.slice(-2)).toEqual([line, '20 passed, 1 failed, 0 skipped']);
  expect(r.code).toBe(1);
});
