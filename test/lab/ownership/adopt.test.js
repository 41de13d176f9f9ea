'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { adoptStateDir, helperEnv } = require('../../../lab/ownership/adopt');
const { VAR } = require('../../../lab/ownership/scan');

const KEYS = [VAR, 'LAB_STATE_DIR', 'PM2_HOME', 'HOME', 'LAB_USER_HOME'];
let saved;
beforeEach(() => {
  saved = Object.fromEntries(KEYS.map((k) => [k, process.env[k]]));
});
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

test("a state folder adopted: its token in every process started from now on, pm2 and HOME inside it, the user's home kept", () => {
  const dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'adopt-')), 'state');
  delete process.env.LAB_USER_HOME;
  process.env.HOME = '/home/someone';
  const token = adoptStateDir(dir);
  expect(process.env[VAR]).toBe(token);
  expect(process.env.LAB_STATE_DIR).toBe(path.resolve(dir));
  expect(process.env.PM2_HOME).toBe(path.join(path.resolve(dir), 'pm2'));
  expect(process.env.HOME).toBe(path.join(path.resolve(dir), 'home'));
  expect(process.env.LAB_USER_HOME).toBe('/home/someone');
  // Adopted again (a second command on the same folder): the same token, the user's home unchanged.
  expect(adoptStateDir(dir)).toBe(token);
  expect(process.env.LAB_USER_HOME).toBe('/home/someone');
});

test("a helper's environment is marked as the run's; without a token, a plain copy", () => {
  expect(helperEnv({ [VAR]: 'abc', X: '1' })).toEqual({ [VAR]: 'abc:run', X: '1' });
  const env = { X: '1' };
  const copy = helperEnv(env);
  expect(copy).toEqual(env);
  expect(copy).not.toBe(env);
});
