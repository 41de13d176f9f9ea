'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { detect } = require('../../../lab/monitoring/cgroups');
const { lab, freePortBase, tmpStateDir, ROOT } = require('../../helper');

// Every study but the course caps nodes: control groups, as root.
const canCap = detect() && process.getuid() === 0;
const asRoot = canCap ? test : test.skip;

// Whether anything is up in a state folder, as `npm run status` sees it.
async function isUp(stateDir) {
  const r = await lab(['status', '--state-dir', stateDir, '--json']);
  return JSON.parse(r.stdout).up;
}

describe('npm run study -- <name>, end to end (quick versions, on loopback)', () => {
  asRoot(
    'cdn at a small scale: three capped runs, a report with our figures beside the seed, nothing left up',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      const r = await lab(
        [
          'study',
          'cdn',
          '--scale',
          '0.05',
          '--dir',
          dir,
          '--port-base',
          String(await freePortBase()),
          '--state-dir',
          stateDir,
        ],
        { timeoutMs: 240000 },
      );
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/3 of 3 runs done/);
      expect(r.stderr).toMatch(/run 3 of 3: cdn-1pct-15M/);
      const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
      // Our rows are filled: a number of requests and a rate, not dashes.
      expect(md).toMatch(/\| no caps \| this lab \| [\d.]+ \| [\d.]+ \| [\d,]+ \|/);
      expect(md).toMatch(/\| 1% CPU, 15 MiB \| seed 000 \| 356\.2 \|/);
      expect(md).toMatch(/requests per second fell to [\d.]+x of the uncapped run's here, 0\.37x in the seed/);
      expect(fs.readFileSync(path.join(dir, 'study.html'), 'utf8')).toMatch(/<h2>Nodes, case by case<\/h2>/);
      const summary = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'cdn-2pct-25M', 'summary.json'), 'utf8'));
      expect(summary.nodes.rows.find((x) => x.node === 'nginx').cpuCapPct).toBe(2);
      expect(await isUp(stateDir)).toBe(false);
    },
    300000,
  );

  asRoot(
    'balancers: one deployment for its levels; a deployment that fails marks its runs not run, with why, and is not a failure',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      // An engine that cannot be reached, whatever this machine has: the mesh's deploy fails.
      const env = { DOCKER_HOST: `unix://${path.join(stateDir, 'no-engine.sock')}` };
      const args = ['study', 'balancers', '--scale', '0.05', '--runs', 'bal-nginx-3,bal-mesh-1', '--dir', dir];
      const r = await lab([...args, '--port-base', String(await freePortBase()), '--state-dir', stateDir], {
        timeoutMs: 240000,
        env,
      });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/5 of 10 runs done/);
      expect(r.stderr.match(/deploying for bal-nginx-3/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/bal-mesh-1 not run: .*LAB_ERR_ENGINE/);
      const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
      expect(md).toMatch(/\| nginx \| 3 \| [\d.]+ \| [\d.,]+ \| [\d.,]+ \| 0 \| - \|/);
      expect(md).toMatch(/\| mesh \| 1 \| not run \|/);
      expect(md).toMatch(/not run: mesh x 1: .*LAB_ERR_ENGINE/);
      expect(await isUp(stateDir)).toBe(false);
    },
    300000,
  );

  asRoot(
    'Ctrl-C inside a group takes its deployment down and keeps the finished levels',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      const args = ['study', 'balancers', '--scale', '0.1', '--runs', 'bal-node-1', '--dir', dir];
      const child = spawn(
        process.execPath,
        ['lab/cli', ...args, '--port-base', String(await freePortBase()), '--state-dir', stateDir],
        { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      let stderr = '';
      child.stderr.on('data', (d) => (stderr += d));
      const exited = new Promise((r) => child.on('exit', (c) => r(c)));
      const deadline = Date.now() + 120000;
      while (!/run 3 of 5: bal-node-1-c10/.test(stderr) && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 200));
      await new Promise((r) => setTimeout(r, 1000));
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      expect(stderr).toMatch(/interrupted: the finished runs are kept/);
      for (const id of ['bal-node-1-c01', 'bal-node-1-c05']) {
        expect(JSON.parse(fs.readFileSync(path.join(dir, 'runs', id, 'summary.json'), 'utf8')).status).toBe(
          'completed',
        );
      }
      expect(fs.existsSync(path.join(dir, 'study.html'))).toBe(true);
      expect(await isUp(stateDir)).toBe(false);
    },
    300000,
  );
});
