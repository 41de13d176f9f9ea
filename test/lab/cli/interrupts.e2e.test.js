'use strict';

// Ctrl-C at any instant of a deploy, or of a down, leaves nothing of the lab running. The
// instants are spread over 85% of one measured deploy; on a busy 2-core machine a deploy's
// length varies, so a late instant may find the deploy finished (exit 0), which the test then
// takes down itself: at least 7 of the 10 must be real interruptions. A very early one may
// reach the lab before Node has set its handler (killed by SIGINT itself, before anything
// started): that is an interruption too, and it must leave nothing either.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, freePortBase, tmpStateDir, startProgram, ROOT, portsFree } = require('../../helper');
const { readMarker } = require('../../../lab/ownership/dirs');
const { findOwned } = require('../../../lab/ownership/scan');
const { ownedNginx, nginxPaths } = require('../../../lab/kinds/common/nginx-process');

function running(stateDir) {
  const pids = findOwned(readMarker(stateDir)?.token);
  const nginx = ownedNginx(nginxPaths(stateDir));
  return nginx ? [...pids, nginx] : pids;
}

// Runs `lab args`, sends SIGINT after `afterMs`; resolves the exit code.
function interruptAfter(args, afterMs) {
  const child = spawn(process.execPath, [path.join(ROOT, 'lab', 'cli'), ...args], { stdio: 'ignore' });
  const timer = setTimeout(() => child.kill('SIGINT'), afterMs);
  return new Promise((resolve) =>
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve(code ?? signal);
    }),
  );
}

jest.setTimeout(240000);

test('Ctrl-C at 10 instants spread over a deploy leaves nothing running', async () => {
  const base = await freePortBase();
  // The deploy measured twice, the shorter kept: the first one is cold (files, pm2's first
  // start) and longer than the ten that follow, which put its late instants after their end.
  const lengths = [];
  for (let k = 0; k < 2; k++) {
    const probe = tmpStateDir();
    const t0 = Date.now();
    expect((await lab(['deploy', 'single', '--state-dir', probe, '--port-base', String(base)])).code).toBe(0);
    lengths.push(Date.now() - t0);
    expect((await lab(['down', '--state-dir', probe])).code).toBe(0);
  }
  const deployMs = Math.min(...lengths);

  const outcomes = [];
  for (let i = 1; i <= 10; i++) {
    const stateDir = tmpStateDir();
    const at = Math.round((deployMs * 0.85 * i) / 10);
    const code = await interruptAfter(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)], at);
    if (code === 0) await lab(['down', '--state-dir', stateDir]);
    outcomes.push({ at, code, left: running(stateDir), portsFree: await portsFree(base) });
  }
  for (const o of outcomes) expect(o).toEqual({ at: o.at, code: o.code, left: [], portsFree: true });
  expect(outcomes.filter((o) => o.code === 130 || o.code === 'SIGINT').length).toBeGreaterThanOrEqual(7);
});

test('Ctrl-C during a down: the down finishes, nothing is left', async () => {
  const base = await freePortBase();
  const stateDir = tmpStateDir();
  expect((await lab(['deploy', 'multi', '--state-dir', stateDir, '--port-base', String(base)])).code).toBe(0);
  // Once the down has begun (it says so), not before Node has set its handler.
  const down = await startProgram('lab/cli', ['down', '--state-dir', stateDir], {
    ready: (err) => /stopping the deployment/.test(err),
  });
  down.child.kill('SIGINT');
  const { code } = await down.exited;
  expect([0, 130]).toContain(code);
  expect(running(stateDir)).toEqual([]);
  expect(await portsFree(base)).toBe(true);
});

// npm passes a signal on to its script's shell, and a shell waiting for its child does not
// pass it further: the scripts exec node, so the lab is the shell (SIGINT to npm's pid alone
// once left the deployment coming up while npm exited 130).
test('every npm script that runs the lab execs it', () => {
  const { scripts } = require('../../../package.json');
  const lab = Object.entries(scripts).filter(([, s]) => s.includes('lab/cli'));
  expect(lab.length).toBeGreaterThanOrEqual(10);
  for (const [name, s] of lab)
    expect({ name, execs: /(^|&& )exec node lab\/cli /.test(s) }).toEqual({ name, execs: true });
});

test('SIGINT to npm alone during `npm run deploy` stops the deploy: nothing left', async () => {
  const base = await freePortBase();
  const stateDir = tmpStateDir();
  const npm = spawn(
    'npm',
    ['run', '--silent', 'deploy', '--', 'single', '--state-dir', stateDir, '--port-base', String(base)],
    {
      cwd: ROOT,
      stdio: 'ignore',
    },
  );
  // Past the set-up check, into the deploy (pm2 and the replicas starting).
  const deadline = Date.now() + 30000;
  while (!require('node:fs').existsSync(path.join(stateDir, 'state.json')) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  npm.kill('SIGINT');
  await new Promise((r) => npm.once('exit', r));
  // The lab finishes its own cleanup after npm has gone.
  const settle = Date.now() + 20000;
  while ((running(stateDir).length || !(await portsFree(base))) && Date.now() < settle) {
    await new Promise((r) => setTimeout(r, 200));
  }
  try {
    expect(running(stateDir)).toEqual([]);
    expect(await portsFree(base)).toBe(true);
    const s = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
    expect(s.up).toBe(false);
  } finally {
    await lab(['down', '--state-dir', stateDir]); // had it come up anyway
  }
});
