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
      { cwd: app.dir, timeout: 600000, maxBuffer: 16 << 20, env: npmEnv() },
      (err, stdout, stderr) => resolve({ ok: !err, out: `${stderr}${stdout}`.trim() }),
    ),
  );
  // (Exit 2, as a service that does not start: the cause is in its folder, most often a lock
  // file out of step with its package.json.)
  if (!r.ok) throw labError('LAB_ERR_APP', app.name, `npm ${args[0]} in ${app.dir} failed: ${npmCause(r.out)}`);
  return true;
}

// npm's cache stays the user's: once a command has pointed HOME into the state folder
// (lab/ownership/adopt.js), npm would write ~/.npm there, into a folder the lab then
// refuses to reset because it did not make what is in it. (`npm run` passes its own
// npm_config_cache, which is why only `node lab/cli` met it.)
function npmEnv(env = process.env) {
  if (env.npm_config_cache || !env.LAB_USER_HOME) return env;
  return { ...env, npm_config_cache: path.join(env.LAB_USER_HOME, '.npm') };
}

// npm's own cause, without its usage text and log pointer: "Missing: left-pad@1.3.0 from
// lock file" came before 60 lines of `npm ci`'s options, and the last three lines said only
// "Run npm help ci".
const NOISE = /^(A complete log of this run|Run "npm help|Run `npm help|aliases:|code E)/;
function npmCause(out) {
  const lines = [];
  for (const raw of out.split('\n')) {
    const line = raw.replace(/^npm (error|ERR!|warn|WARN)\s?/, '').trim();
    // Past this comes the command's usage text, which says nothing of the cause.
    if (/^(Usage:|Clean install a project|Install a package)/.test(line)) break;
    if (line && !NOISE.test(line)) lines.push(line);
  }
  return lines.slice(0, 6).join(' | ') || 'it failed without a word';
}

module.exports = { installApp, npmCause, npmEnv };
