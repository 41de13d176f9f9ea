'use strict';

// Load nodes as child processes of this machine: each runs lab/generators/remote-shard.js
// as a swarm task would, with its own name (and, for the tests, its own clock skew). The
// distributed generator's tests use it; so can anyone trying --load-nodes without a swarm.
const path = require('node:path');
const { spawn } = require('node:child_process');
const { helperEnv } = require('../ownership/adopt');

function localLauncher({ skewsMs = [], names = [] } = {}) {
  return {
    async launch({ count, env }) {
      const children = Array.from({ length: count }, (_, i) => {
        const child = spawn(process.execPath, [path.join(__dirname, 'remote-shard.js')], {
          stdio: ['ignore', 'ignore', 'pipe'],
          env: {
            ...helperEnv(),
            ...env,
            LAB_NODE: names[i] || `local-${i + 1}`,
            LAB_CLOCK_SKEW_MS: String(skewsMs[i] || 0),
          },
        });
        child.stderrTail = '';
        child.stderr.on('data', (d) => (child.stderrTail = (child.stderrTail + d).slice(-2000)));
        child.exited = new Promise((resolve) => child.on('exit', resolve));
        return child;
      });
      return {
        // Only the processes this launcher started, by their pid.
        async stop() {
          for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGTERM');
          const killer = setTimeout(() => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')), 5000);
          await Promise.all(children.map((c) => c.exited));
          clearTimeout(killer);
        },
        async why() {
          return children
            .map((c) => c.stderrTail.trim())
            .filter(Boolean)
            .join('; ');
        },
        pids: children.map((c) => c.pid),
      };
    },
  };
}

module.exports = { localLauncher };
