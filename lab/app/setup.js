'use strict';

const path = require('node:path');
const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');
const { own } = require('../ownership/cleanups');

// Your service's own set-up (--app-setup 'npm run migrate'): run once, as a shell runs the
// line, in your folder, with the stores' addresses in its environment (DATABASE_URL...), when
// they are up and before any replica starts. Its output goes to the lab's log; a failure is
// yours to fix (exit 2, its last lines), and whatever was started is taken down.
const LIMIT_MS = 10 * 60000;

function appSetup(app, line, env, log = () => {}) {
  log(`setting up ${app.name}: ${line}`);
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', line], {
      cwd: app.dir,
      env: { ...process.env, ...env, PATH: `${path.join(app.dir, 'node_modules', '.bin')}:${process.env.PATH}` },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    const keep = (d) => (out = (out + d).slice(-16384));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    // (Its whole process group, should the lab be stopped meanwhile.)
    const release = own(() => {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // gone
      }
    });
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }, LIMIT_MS);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      release();
      const last =
        out
          .trim()
          .split('\n')
          .slice(-8)
          .map((l) => `  ${l}`)
          .join('\n') || '  (it wrote nothing)';
      if (code === 0) return resolve();
      return reject(
        labError(
          'LAB_ERR_APP_SETUP',
          line,
          `${signal ? `killed by ${signal}` : `exit code ${code}`}; its last lines:\n${last}`,
        ),
      );
    });
  });
}

module.exports = { appSetup };
