'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { pick } = require('../names');
const LocalRuntime = require('./local');
const ComposeRuntime = require('./compose');

// Where a deployment runs: local processes (the embedded default) or containers.
const ENGINES = { local: LocalRuntime, compose: ComposeRuntime };

function runtimeFor(engine = 'local', options) {
  const Runtime = pick('engine', engine, ENGINES);
  return new Runtime(options);
}

// The runtime of whatever is up in a run directory (for status and down).
function runtimeOfState(options) {
  let engine = 'local';
  try {
    const state = JSON.parse(fs.readFileSync(path.join(path.resolve(options.stateDir), 'state.json'), 'utf8'));
    if (state.runtime in ENGINES) engine = state.runtime;
  } catch {
    // nothing recorded: the local runtime says so
  }
  return runtimeFor(engine, options);
}

module.exports = { runtimeFor, runtimeOfState, ENGINES };
