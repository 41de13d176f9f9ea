'use strict';

const path = require('node:path');
const { claimDir } = require('./dirs');
const { VAR } = require('./scan');

// Makes the state folder the lab's (lab/ownership/dirs.js) and sets this process's
// environment so that every process it starts from now on carries the folder's token
// (lab/ownership/scan.js) and keeps its home inside the folder (pm2 writes to $HOME/.pm2
// when it is required; nothing of the lab's may land in a user's home).
function adoptStateDir(stateDir) {
  const marker = claimDir(stateDir, '--state-dir');
  process.env[VAR] = marker.token;
  process.env.LAB_STATE_DIR = path.resolve(stateDir);
  process.env.PM2_HOME = path.join(path.resolve(stateDir), 'pm2');
  // The user's own home, for what must stay theirs (npm's cache, when your service's
  // dependencies are installed): kept once, before HOME points into the folder.
  if (!process.env.LAB_USER_HOME && process.env.HOME) process.env.LAB_USER_HOME = process.env.HOME;
  process.env.HOME = path.join(path.resolve(stateDir), 'home');
  return marker.token;
}

// The environment of a helper a command stops itself (StatsD, carbon, the load generator, the
// black boxes of a characterization): marked as the run's, so that a runtime's `down` inside
// that command leaves them to the command, while a later `npm run down` still finds them.
function helperEnv(env = process.env) {
  return env[VAR] ? { ...env, [VAR]: `${env[VAR]}:run` } : { ...env };
}

module.exports = { adoptStateDir, helperEnv };
