'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { onlyWith } = require('../../requires');
const { lab, tmpStateDir, isUp, studyArgs } = require('../../helper');

// Every study but the course caps nodes: control groups, as root.
const asRoot = onlyWith('cgroups');

describe('npm run study -- cdn, end to end (quick version, on loopback)', () => {
  asRoot(
    'cdn at a small scale, one repetition: five runs, a report with our figures beside the seed and its claims tested, nothing left up',
    async () => {
      const dir = tmpStateDir();
      const stateDir = tmpStateDir();
      const args = await studyArgs('cdn', { scale: 0.05, repetitions: 1, dir }, { stateDir });
      // (About 80 s; 240 s ran out in a first CI run on a machine with cold caches, its cores
      // saturated by the conformance references run afresh.)
      const r = await lab(args, { timeoutMs: 480000 });
      expect(r.code).toBe(0);
      expect(r.stdout).toMatch(/5 of 5 runs done/);
      expect(r.stderr).toMatch(/run 3 of 5: cdn-1pct-15M/);
      expect(r.stderr).toMatch(/warmed: \d+ of 1000 objects/);
      const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
      // Our rows are filled: a number of requests and a rate, not dashes.
      expect(md).toMatch(/\| no caps \| this lab \| [\d.,]+ \| [\d.,]+ \| [\d,]+ \|/);
      expect(md).toMatch(/\| 1% CPU, 15 MiB \| seed 000 \| 356\.2 \|/);
      expect(md).toMatch(/requests per second fell to [\d.]+x of the uncapped runs' median here, 0\.37x in the seed/);
      expect(fs.readFileSync(path.join(dir, 'study.html'), 'utf8')).toMatch(/<h2>Nodes, case by case<\/h2>/);
      // The claims, each with a verdict computed from these runs and the rule it used.
      expect(md).toMatch(/## Why ours differs, tested/);
      expect(md).toMatch(/Verdict at 2%: (confirmed|refuted|inconclusive): .* Rule: /);
      expect(md).toMatch(/the balancer alone is at its cap.* Verdict: (confirmed|refuted|inconclusive)/);
      const summary = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'cdn-2pct-25M', 'summary.json'), 'utf8'));
      const nginx = summary.nodes.rows.find((x) => x.node === 'nginx');
      expect(nginx.cpuCapPct).toBe(2);
      expect(nginx.throttledPct).toEqual(expect.any(Number));
      const p500 = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'cdn-2pct-25M-p500', 'summary.json'), 'utf8'));
      expect(p500.nodes.rows.find((x) => x.node === 'nginx').periodMs).toBe(500);
      expect(await isUp(stateDir)).toBe(false);
    },
    540000,
  );
});
