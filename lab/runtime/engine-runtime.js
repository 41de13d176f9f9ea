'use strict';

const path = require('node:path');
const { labError } = require('../../common/errors');
const StateFile = require('./state-file');

// What the runtimes on a Docker engine (compose, swarm) share: the state folder and its
// state.json, their own subfolder in it (`dirName`), the engine's environment, and the
// refusal to start a second deployment in one state folder.
class EngineRuntime {
  constructor({ stateDir, host = '127.0.0.1', log = () => {}, env = process.env }, dirName) {
    this.stateDir = path.resolve(stateDir);
    this.host = host;
    this.log = log;
    this.env = env;
    this.state = new StateFile(this.stateDir);
    this.dir = path.join(this.stateDir, dirName);
  }

  readState() {
    return this.state.read();
  }

  writeState(state) {
    this.state.write(state);
  }

  assertNotUp() {
    const { state: existing } = this.state.inspect();
    if (existing) throw labError('LAB_ERR_ALREADY_UP', existing.deployment.label, this.stateDir);
  }
}

// A name of the engine's own (compose project, stack) from the state folder's, so parallel
// runs with their own folders (the tests do that) never share containers.
function engineName(stateDir, suffix = '', maxDirChars = Infinity) {
  const dir =
    path
      .basename(stateDir)
      .replace(/[^a-z0-9]/gi, '')
      .toLowerCase()
      .slice(-maxDirChars) || 'run';
  return `lab-${dir}${suffix}`;
}

module.exports = { EngineRuntime, engineName };
