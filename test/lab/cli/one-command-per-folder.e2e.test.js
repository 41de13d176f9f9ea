'use strict';

// Two commands on one folder (lab/ownership/lock.js), and external calls that could hang:
// each reproduced defect of the audit, refused at once with a code, touching nothing.
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, freePortBase, tmpStateDir, errorCode, portsFree, flagsOf } = require('../../helper');
const { readMarker } = require('../../../lab/ownership/dirs');
const { findOwned } = require('../../../lab/ownership/scan');
const { ownedNginx, nginxPaths } = require('../../../lab/kinds/common/nginx-process');

function running(stateDir) {
  const pids = findOwned(readMarker(stateDir)?.token);
  const nginx = ownedNginx(nginxPaths(stateDir));
  return nginx ? [...pids, nginx] : pids;
}

describe('one command per folder', () => {
  // A process holding a folder's lock, as a long command would (lab/ownership/lock.js).
  function holder(dir, command) {
    const code = `require(${JSON.stringify(path.join(__dirname, '../../../lab/ownership/lock'))}).lockDir(${JSON.stringify(dir)}, 'x', ${JSON.stringify(command)});
      process.stdout.write('held\\n'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
    return new Promise((resolve) => child.stdout.once('data', () => resolve(child)));
  }
  const stop = (child) => new Promise((r) => (child.kill('SIGKILL'), child.once('exit', r)));

  // Which one takes the folder first depends on how fast Node starts on a busy machine; one
  // of the two comes up, and the other is refused in seconds, naming it.
  test('two deploys 0.2 s apart on one state folder: one comes up, the other is refused at once', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const args = ['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)];
    const t = [Date.now()];
    const first = lab(args).then((r) => ({ ...r, ms: Date.now() - t[0] }));
    await new Promise((r) => setTimeout(r, 200));
    t.push(Date.now());
    const second = lab(args).then((r) => ({ ...r, ms: Date.now() - t[1] }));
    const both = await Promise.all([first, second]);
    try {
      const up = both.filter((r) => r.code === 0);
      const refused = both.filter((r) => r.code !== 0);
      expect(up).toHaveLength(1);
      expect(refused.map((r) => ({ exit: r.code, code: errorCode(r.stderr) }))).toEqual([
        { exit: 2, code: 'LAB_ERR_LOCKED' },
      ]);
      expect(refused[0].stderr).toMatch(/in use by `deploy single .*` \(pid \d+, running for \d+ s\)/);
      expect(refused[0].ms).toBeLessThan(10000);
      const s = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir])).stdout);
      expect(s.up).toBe(true);
      expect(up[0].stdout).toContain(`npm run down -- --state-dir ${stateDir}`);
    } finally {
      expect((await lab(['down', '--state-dir', stateDir])).code).toBe(0);
    }
    expect(running(stateDir)).toEqual([]);
  });

  test.each([
    ['deploy', ['deploy', 'single']],
    ['down', ['down']],
    ['scale', ['scale', 'replica=2']],
    ['scenario', ['scenario', 'ping', 'load', 'single', '--scale', '0.05']],
    ['capacity', ['capacity']],
    ['characterize', ['characterize', 'bbox1']],
    ['study', ['study', 'cdn', '--scale', '0.05']],
  ])('%s on a state folder a running command holds: LAB_ERR_LOCKED, nothing touched', async (_, args) => {
    const stateDir = tmpStateDir();
    const child = await holder(stateDir, 'study cdn (another terminal)');
    try {
      const base = await freePortBase();
      const r = await lab(
        [...args, '--state-dir', stateDir, '--port-base', String(base)].filter(
          (a, i, all) =>
            // down and scale take no --port-base
            !(['down', 'scale'].includes(args[0]) && (a === '--port-base' || all[i - 1] === '--port-base')),
        ),
        { env: { LAB_STATSD: 'off' } },
      );
      expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_LOCKED' });
      expect(r.stderr).toContain('study cdn (another terminal)');
      expect(fs.readdirSync(stateDir)).toEqual(['.lab-lock']);
      expect(await portsFree(base)).toBe(true);
    } finally {
      await stop(child);
    }
  });

  test('two studies on one --dir: the second is refused, whatever its state folder', async () => {
    const dir = tmpStateDir();
    const child = await holder(dir, 'study cdn --scale 0.05');
    try {
      const r = await lab(['study', 'cdn', '--scale', '0.05', '--dir', dir, '--state-dir', tmpStateDir()]);
      expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_LOCKED' });
      expect(r.stderr).toContain('--dir');
      expect(fs.readdirSync(dir)).toEqual(['.lab-lock']);
      // --plan only reads: it is answered.
      const plan = await lab(['study', 'cdn', '--scale', '0.05', '--dir', dir, '--plan']);
      expect(plan.code).toBe(0);
    } finally {
      await stop(child);
    }
  });

  test('status is read-only: answered while a command holds the folder, naming it', async () => {
    const stateDir = tmpStateDir();
    const child = await holder(stateDir, 'deploy multi');
    try {
      const s = await lab(['status', '--state-dir', stateDir]);
      expect(s.code).toBe(0);
      expect(s.stdout).toContain('in use by `deploy multi`');
    } finally {
      await stop(child);
    }
  });

  // An engine that accepts connections and never answers once kept `deploy` silent for
  // 150 s (the check's time-out was 600 s). Both engines at once: the file stays short.
  test('--engine swarm or compose with an engine that never answers: LAB_ERR_ENGINE in seconds', async () => {
    const net = require('node:net');
    const held = [];
    const mute = net.createServer((c) => held.push(c));
    await new Promise((r) => mute.listen(0, '127.0.0.1', r));
    try {
      const t0 = Date.now();
      const runs = await Promise.all(
        ['swarm', 'compose'].map(async (engine) => {
          const r = await lab(
            [
              'deploy',
              'single',
              ...flagsOf({ engine: engine, stateDir: tmpStateDir(), portBase: await freePortBase() }),
            ],
            { env: { DOCKER_HOST: `tcp://127.0.0.1:${mute.address().port}` }, timeoutMs: 60000 },
          );
          return { engine, exit: r.code, code: errorCode(r.stderr) };
        }),
      );
      expect(runs).toEqual([
        { engine: 'swarm', exit: 1, code: 'LAB_ERR_ENGINE' },
        { engine: 'compose', exit: 1, code: 'LAB_ERR_ENGINE' },
      ]);
      expect(Date.now() - t0).toBeLessThan(30000);
    } finally {
      for (const c of held) c.destroy();
      mute.close();
    }
  });
});
