'use strict';

const path = require('node:path');
const { spawn } = require('node:child_process');

// Runs the lab's CLI (node lab/cli ARGS) as a user would; resolves { code, out } with its
// stdout, its progress passed through on stderr.
// (env: the environment it runs in, default this process's; nodeArgs: Node's own flags for
// it, which the processes it forks inherit: --cpu-prof, refused in NODE_OPTIONS.)
function lab(args, { env = process.env, nodeArgs = [] } = {}) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeArgs, path.join(__dirname, '..', 'lab', 'cli'), ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env,
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.on('exit', (code) => resolve({ code, out }));
  });
}

module.exports = lab;
