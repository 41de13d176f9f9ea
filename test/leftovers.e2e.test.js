'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { VAR, newToken, rootPrefix, suiteProcesses, stopAll } = require('./leftovers');

// The suite finds every process it started, however it was started, and only those: the
// check `npm test` ends with, and the teardown that stops them before removing the scratch
// folder (a carbon-cache outlived a green run; a failed teardown left a deployment up).
const daemon = (env, cwd = os.tmpdir(), args = ['-c', 'sleep 60; true']) => {
  // detached: a session of its own, as the daemons that were left had.
  const child = spawn('sh', args, { env, cwd, detached: true, stdio: 'ignore' });
  child.unref();
  return child;
};

test('processes with the run token, run from its folder or naming it are found and stopped; another run is not', async () => {
  const token = newToken();
  const other = newToken();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), rootPrefix(token)));
  const byEnv = daemon({ PATH: process.env.PATH, [VAR]: token });
  // (An environment scrubbed by the program, nginx's and redis's process titles: by folder.)
  const byCwd = daemon({ PATH: process.env.PATH }, root);
  const byArg = daemon({ PATH: process.env.PATH }, os.tmpdir(), ['-c', 'sleep 60; true', `${root}/conf`]);
  const notOurs = daemon({ PATH: process.env.PATH, [VAR]: other });
  try {
    let found = [];
    for (let i = 0; i < 40 && found.length < 3; i++) {
      await new Promise((r) => setTimeout(r, 50));
      found = suiteProcesses(token);
    }
    const whys = Object.fromEntries(found.map((p) => [p.pid, p.why]));
    expect(whys[byEnv.pid]).toBe('its environment');
    expect(whys[byCwd.pid]).toBe('its working folder');
    expect(whys[byArg.pid]).toBe('its command line');
    expect(whys[notOurs.pid]).toBeUndefined();
    // Never this process or its parents (they carry the token when the suite runs).
    expect(whys[process.pid]).toBeUndefined();
    expect(await stopAll(found)).toEqual([]);
    expect(suiteProcesses(token).filter((p) => [byEnv.pid, byCwd.pid, byArg.pid].includes(p.pid))).toEqual([]);
  } finally {
    // Each test daemon's whole group (its shell and the sleep under it).
    for (const c of [byEnv, byCwd, byArg, notOurs]) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        // stopped above
      }
    }
  }
});
