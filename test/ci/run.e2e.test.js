'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../helper');

// .ci/run's end as CI reads it, with npm and apt-cache stood in for (nothing runs): every
// suite's counts added up in the last line, `N passed, N failed, N skipped`, each failing test
// named just before it (test-output/failures-*.txt), and the exit code. (Its failures loop
// once reused the failed count's name: the last line read "1677 passed,
// test-output/failures-*.txt failed, 0 skipped", and CI could not read it.)
function ciRun({ failures }) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ci-run-'));
  fs.mkdirSync(path.join(dir, '.ci'));
  fs.copyFileSync(path.join(ROOT, '.ci', 'run'), path.join(dir, '.ci', 'run'));
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const write = (name, body) => fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  // npm test: 10 passed (and one failed, named, when asked); each other suite: 5 passed.
  write(
    'npm',
    [
      'mkdir -p test-output',
      'if [ "$1" = test ]; then',
      `  echo "10 passed, ${failures ? 1 : 0} failed, 0 skipped" > test-output/summary.txt`,
      failures ? "  echo 'test/a.e2e.test.js › it holds: Expected: 3' > test-output/failures-e2e.txt" : '  :',
      `  exit ${failures ? 1 : 0}`,
      'fi',
      'echo "5 passed, 0 failed, 0 skipped" > test-output/summary.txt',
    ].join('\n'),
  );
  write('apt-cache', 'echo "  Candidate: 1.0"');
  write('id', 'echo 0');
  const r = spawnSync('bash', ['.ci/run'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
  });
  fs.rmSync(dir, { recursive: true, force: true });
  return { code: r.status, lines: r.stdout.trim().split('\n') };
}

test('.ci/run ends with every suite added up in one line, the exit 0 when all passed', () => {
  const r = ciRun({ failures: false });
  expect(r.lines.at(-1)).toBe('20 passed, 0 failed, 0 skipped');
  expect(r.lines.filter((l) => l.startsWith('failed: '))).toEqual([]);
  expect(r.code).toBe(0);
});

test('.ci/run names each failing test just before its last line, and exits 1', () => {
  const r = ciRun({ failures: true });
  expect(r.lines.slice(-2)).toEqual([
    'failed: test/a.e2e.test.js › it holds: Expected: 3',
    '20 passed, 1 failed, 0 skipped',
  ]);
  expect(r.code).toBe(1);
});
