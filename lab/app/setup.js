'use strict';

const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');
const { own } = require('../ownership/cleanups');
const { stopGroup, GRACE_MS } = require('../ownership/procs');
const { lastLines, WIDTH } = require('../terminal/last-lines');
const { text: durationText } = require('../terminal/duration');
const { shellPath } = require('../paths');

// Your service's own set-up (--app-setup 'npm run migrate'): run once, as a shell runs the
// line, in your folder, with the stores' addresses in its environment (DATABASE_URL...), when
// they are up and before any replica starts. Its output goes to the lab's log; a failure is
// yours to fix (exit 2, its last lines), and whatever was started is taken down. It has
// `timeoutMs` (--app-setup-timeout, 10 minutes by default) before its process group is
// killed; a Ctrl-C meanwhile stops it with SIGTERM, then SIGKILL after a grace of GRACE_MS.
const SETUP_TIMEOUT_MS = 10 * 60000;

function appSetup(app, line, env, log = () => {}) {
  const timeoutMs = app.setupTimeoutS ? app.setupTimeoutS * 1000 : SETUP_TIMEOUT_MS;
  log(`setting up ${app.name}: ${line}`);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: app.dir,
      env: { ...process.env, ...env, PATH: shellPath(app.dir) },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    // (Enough of its tail for the last lines at their width.)
    let out = '';
    const keep = (d) => (out = (out + d).slice(-64 * (WIDTH + 1) * 8));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const what = `the set-up (${line})`;
    // Its whole process group, should the lab be stopped meanwhile.
    const release = own(() => {
      log(`stopping ${what}`);
      return stopGroup(child, { log, what });
    });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      log(`${what} ran past its limit of ${durationText(timeoutMs / 1000)} (--app-setup-timeout): stopping it`);
      stopGroup(child, { log, what });
    }, timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      release();
      if (code === 0) return resolve();
      const how = timedOut
        ? `it ran past its limit of ${durationText(timeoutMs / 1000)} and was stopped (${signal || `exit code ${code}`}); give it longer with --app-setup-timeout (e.g. --app-setup-timeout 30m)`
        : signal
          ? `killed by ${signal}`
          : `exit code ${code}`;
      return reject(labError('LAB_ERR_APP_SETUP', line, `${how}; its last lines:\n${lastLines(out)}`));
    });
  });
}

module.exports = { appSetup, SETUP_TIMEOUT_MS, GRACE_MS };
