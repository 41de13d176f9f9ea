'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { onlyWith } = require('../../requires');
const { tmpStateDir, ROOT, isUp, studyArgs } = require('../../helper');

// Every study but the course caps nodes: control groups, as root.
const asRoot = onlyWith('cgroups');

describe('npm run study: Ctrl-C inside a group', () => {
  asRoot(
    'Ctrl-C inside a group takes its deployment down and keeps the finished levels',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      const settings = { scale: 0.1, repetitions: 1, runs: 'bal-node-1', dir };
      const args = await studyArgs('balancers', settings, { stateDir });
      const child = spawn(process.execPath, ['lab/cli', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
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
