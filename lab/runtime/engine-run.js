'use strict';

const { spawn } = require('node:child_process');
const { labError } = require('../../common/errors');

// The engine's command line, for every runtime and launcher that speaks to it (compose, the
// swarm, the load nodes): below both compose.js and compose-replicas.js, which once imported
// each other for it.

// Runs docker-compose or docker; resolves { code, out, timedOut } (stdout and stderr
// together). The promise carries the child, so a long `up` can be stopped when the run is
// interrupted. Every call has a time-out: builds may take minutes, a question to the engine
// (ENGINE_CHECK_MS) only seconds.
const ENGINE_CHECK_MS = 15000;
function run(cmd, args, { env = process.env, timeoutMs = 600000 } = {}) {
  let child;
  const done = new Promise((resolve, reject) => {
    child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err.code === 'ENOENT' ? labError('LAB_ERR_ENGINE', `${cmd} is not installed`) : err);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out, timedOut });
    });
  });
  done.child = child;
  return done;
}

// The engine did not answer, or said no: one message naming what to run to see why.
function engineSilent(r, env, command) {
  const where = env.DOCKER_HOST ? `DOCKER_HOST=${env.DOCKER_HOST}` : 'the default socket';
  return labError(
    'LAB_ERR_ENGINE',
    r.timedOut
      ? `no answer from the engine at ${where} within ${ENGINE_CHECK_MS / 1000} s (\`${command}\` hung; \`docker info\` shows what is wrong)`
      : `no engine answers at ${where} (${tail(r.out, 1)})`,
  );
}

// The last lines of a command's output, for a message.
function tail(text, lines = 8) {
  return text.trim().split('\n').slice(-lines).join('\n');
}

module.exports = { run, tail, engineSilent, ENGINE_CHECK_MS };
