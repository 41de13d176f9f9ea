'use strict';

const fs = require('node:fs');
const path = require('node:path');
const describeMachine = require('../../common/machine');
const { claimDir, resetDir } = require('../ownership/dirs');
const { runDirOf, pathSlug } = require('../results/run-dir');
const { adoptStateDir } = require('../ownership/adopt');
const { isPath } = require('../../artillery/scenarios');

// The run's folder: the lab's own (new, or one it made), with the machine it runs on. Starts
// the run's context, which every later stage of the scenario (lab/run/) adds to and reads.
function openRun(p, log) {
  const { values } = p;
  // (A path endpoint names its folder by its words: /api/items -> api-items.)
  const what = isPath(p.endpoint) ? pathSlug(p.endpoint) : p.endpoint;
  // From here on every process started carries the state folder's token (lab/ownership).
  // (Claimed before the run folder is made: a --results-dir inside a new --state-dir would
  // otherwise make the state folder look like someone else's.)
  adoptStateDir(p.ctx.stateDir);
  const dir = runDirOf(
    values,
    `${what.replace(/[^A-Za-z0-9_.-]+/g, '-')}-${p.scenario}-${p.target ? 'external' : p.deployment.name}`,
  );
  // --run-dir is emptied only when the lab made it (lab/ownership/dirs.js).
  if (values['run-dir']) resetDir(dir, '--run-dir');
  else claimDir(dir, 'the run folder');
  const file = (name) => path.join(dir, name);
  const writeJson = (name, data) => fs.writeFileSync(file(name), `${JSON.stringify(data, null, 2)}\n`);
  const machine = describeMachine({ artillery: require('artillery/package.json').version });
  writeJson('machine.json', machine);
  const runId = values['run-name'] ?? path.basename(dir).replace(/[^A-Za-z0-9_-]/g, '_');
  return { p, log, dir, file, writeJson, machine, prefix: `lab.${runId}`, liveCache: new Map() };
}

module.exports = { openRun };
