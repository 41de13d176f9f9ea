'use strict';

const { onlyWith } = require('../requires');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../helper');

// scripts/setup.sh's installs as a new user meets them, with apt-get and dpkg-query stood in
// for (nothing is installed): apt's 150 lines of progress flooded the first run.
function withFakeApt(aptExit) {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'fake-apt-'));
  const write = (name, body) => fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  write('dpkg-query', 'exit 1');
  write(
    'apt-get',
    `for i in $(seq 1 150); do echo "Reading database ... $i%"; done; [ "$1" = update ] || [ "$1" = -q ] && exit 0; exit ${aptExit}`,
  );
  const log = path.join(bin, 'apt.log');
  const r = spawnSync('bash', ['scripts/setup.sh', 'run'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, LAB_SETUP_LOG: log },
  });
  return { ...r, log };
}

const asRoot = onlyWith('root');

asRoot("apt's progress goes to a log file: one line for the group of packages", () => {
  const r = withFakeApt(0);
  expect(r.status).toBe(0);
  const lines = r.stderr.split('\n').filter((l) => l.startsWith('setup:'));
  expect(lines).toEqual([
    `setup: installing Debian packages: nginx libnginx-mod-stream (apt's output: ${r.log})`,
    expect.stringMatching(/^setup: installing Debian packages: graphite-carbon python3-whisper/),
  ]);
  expect(r.stderr).not.toMatch(/Reading database/);
  expect(fs.readFileSync(r.log, 'utf8')).toMatch(/Reading database \.\.\. 150%/);
});

asRoot('a failing install names the log file and shows its last lines, and stops the set-up', () => {
  const r = withFakeApt(100);
  expect(r.status).not.toBe(0);
  expect(r.stderr).toContain(`apt-get could not install nginx libnginx-mod-stream: its output is in ${r.log}`);
  expect(r.stderr.split('\n').filter((l) => /Reading database/.test(l)).length).toBeLessThanOrEqual(5);
});
