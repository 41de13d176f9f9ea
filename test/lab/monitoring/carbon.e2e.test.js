'use strict';

// The run's own carbon-cache is owned from its spawn: a Ctrl-C that reaches the run while
// carbon is still coming up (before the run owns its monitoring) stops it too. A CI run once
// found a carbon-cache left running by a run interrupted there.
const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { listen, freePortBase, tmpStateDir, ROOT, flagsOf } = require('../../helper');
const { readMarker } = require('../../../lab/ownership/dirs');
const { findOwned } = require('../../../lab/ownership/scan');
const { onlyWith } = require('../../requires');

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const maybe = onlyWith('carbon');

maybe(
  'Ctrl-C while the run is starting its carbon-cache leaves no carbon-cache running',
  async () => {
    const target = await listen((req, res) => res.end('ok'));
    const stateDir = tmpStateDir();
    const conf = path.join(stateDir, 'graphite', 'carbon.conf');
    try {
      const child = spawn(
        process.execPath,
        [
          path.join(ROOT, 'lab', 'cli'),
          'scenario',
          'ping',
          'load',
          ...flagsOf({
            target: target.url,
            generator: 'fast',
            scale: 0.05,
            stateDir: stateDir,
            resultsDir: tmpStateDir(),
            portBase: await freePortBase(),
          }),
        ],
        { stdio: 'ignore' },
      );
      const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
      // The instant carbon's config is written, its process is spawned right after: the
      // interrupt lands while it comes up (its first seconds, before it listens).
      const deadline = Date.now() + 60000;
      while (!fs.existsSync(conf) && Date.now() < deadline && child.exitCode === null) await sleep(5);
      expect(fs.existsSync(conf)).toBe(true);
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      // Stopping takes carbon's own shutdown: wait for it, bounded.
      const token = readMarker(stateDir)?.token;
      expect(token).toBeTruthy();
      let left = findOwned(token);
      for (let i = 0; i < 50 && left.length; i++) {
        await sleep(100);
        left = findOwned(token);
      }
      expect(left).toEqual([]);
    } finally {
      await target.close();
    }
  },
  120000,
);
