'use strict';

const { pick } = require('../names');
const LocalRuntime = require('./local');
const ComposeRuntime = require('./compose');
const SwarmRuntime = require('./swarm');
const StateFile = require('./state-file');

// Where a deployment runs: local processes (the embedded default), containers, or a stack
// on a swarm.
const RUNTIMES = { local: LocalRuntime, compose: ComposeRuntime, swarm: SwarmRuntime };

function runtimeFor(engine = 'local', options) {
  const Runtime = pick('engine', engine, RUNTIMES);
  return new Runtime(options);
}

// The runtime of whatever is up in a state folder (for status and down). Nothing recorded,
// or an unreadable state.json: the local runtime, which looks for the lab's processes.
function runtimeOfState(options) {
  const { state } = new StateFile(options.stateDir).inspect();
  return runtimeFor(state && state.runtime in RUNTIMES ? state.runtime : 'local', options);
}

module.exports = { runtimeFor, runtimeOfState, RUNTIMES };
