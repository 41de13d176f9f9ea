'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { openRun } = require('../../../lab/run/folder');
const { readMarker } = require('../../../lab/ownership/dirs');

// The run's folder under a --results-dir inside a new, empty --state-dir: the state folder is
// claimed first, then the run folder made in it. (Made the other way round, the state folder
// held a results folder it did not make and the run was refused with LAB_ERR_NOT_OURS: seven
// container tests failed in CI on it.)
test('a --results-dir inside a new --state-dir: both claimed by the lab, the run folder inside', () => {
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-state-'));
  const env = { ...process.env };
  try {
    const p = {
      values: { 'results-dir': path.join(stateDir, 'results') },
      endpoint: 'ping',
      scenario: 'load',
      deployment: { name: 'single' },
      ctx: { stateDir },
    };
    const run = openRun(p, () => {});
    expect(readMarker(stateDir)).not.toBeNull();
    expect(path.dirname(path.dirname(run.dir))).toBe(stateDir);
    expect(path.basename(run.dir)).toMatch(/-ping-load-single$/);
    expect(fs.existsSync(run.file('machine.json'))).toBe(true);
  } finally {
    process.env = env;
    fs.rmSync(stateDir, { recursive: true, force: true });
  }
});
