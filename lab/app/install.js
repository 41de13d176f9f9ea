'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFile } = require('node:child_process');
const { labError } = require('../../common/errors');

// The app's dependencies, installed from its own lock file when they are missing (npm ci),
// or from its package.json when it has no lock (npm install). Its node_modules is its own:
// the lab writes nothing else into the app's folder.
async function installApp(app, log = () => {}) {
  if (!app.install || fs.existsSync(path.join(app.dir, 'node_modules'))) return false;
  const args = app.install === 'ci' ? ['ci'] : ['install', '--no-package-lock'];
  log(`installing ${app.name}'s dependencies: npm ${args[0]} in ${app.dir}`);
  const r = await new Promise((resolve) =>
    execFile(
      'npm',
      [...args, '--no-audit', '--no-fund', '--loglevel=error'],
      { cwd: app.dir, timeout: 600000, maxBuffer: 16 << 20 },
      (err, stdout, stderr) => resolve({ ok: !err, out: `${stderr}${stdout}`.trim() }),
    ),
  );
  if (!r.ok) {
    throw labError(
      'LAB_ERR_PROCESS',
      `npm ${args[0]} in ${app.dir}`,
      r.out.split('\n').slice(-3).join(' | ') || 'it failed without a word',
    );
  }
  return true;
}

module.exports = { installApp };
