'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { onlyWith } = require('../../requires');
const { lab, tmpStateDir, isUp, studyArgs } = require('../../helper');

// Every study but the course caps nodes: control groups, as root.
const asRoot = onlyWith('cgroups');

describe('npm run study -- balancers: groups of runs sharing a deployment', () => {
  asRoot(
    'balancers: one deployment for its levels; a deployment that fails marks its runs not run, with why, and is not a failure',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      // An engine that cannot be reached, whatever this machine has: the mesh's deploy fails.
      const env = { DOCKER_HOST: `unix://${path.join(stateDir, 'no-engine.sock')}` };
      const settings = { scale: 0.05, repetitions: 1, runs: 'bal-nginx-3,bal-mesh-1', dir };
      const r = await lab(await studyArgs('balancers', settings, { stateDir }), { timeoutMs: 240000, env });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/5 of 10 runs done/);
      expect(r.stderr.match(/deploying for bal-nginx-3/g)).toHaveLength(1);
      expect(r.stderr).toMatch(/bal-mesh-1 not run: .*LAB_ERR_ENGINE/);
      const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
      // The servers' CPU is read from the group's deployment, which each level's run watches.
      expect(md).toMatch(/\| nginx \| 3 \| - \| [\d.,]+ \| [\d.,]+ \| [\d.,]+ \| 0 \| \d+% \| \d+% \| - \|/);
      expect(md).toMatch(/\| mesh \| 1 \| - \| not run \|/);
      expect(md).toMatch(/not run: mesh x 1: .*LAB_ERR_ENGINE/);
      expect(await isUp(stateDir)).toBe(false);
    },
    300000,
  );
});
