'use strict';

const { npmCause, npmEnv } = require('../../../lab/app/install');

test("npm's cause is kept, its usage text and log pointer dropped", () => {
  const out = [
    'npm error code EUSAGE',
    'npm error',
    'npm error `npm ci` can only install packages when your package.json and package-lock.json are in sync.',
    'npm error',
    'npm error Missing: left-pad@1.3.0 from lock file',
    'npm error',
    'npm error Clean install a project',
    'npm error',
    'npm error Usage:',
    'npm error npm ci',
    'npm error   --install-strategy',
    'npm error Run "npm help ci" for more info',
    'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
  ].join('\n');
  const cause = npmCause(out);
  expect(cause).toMatch(/can only install packages/);
  expect(cause).toMatch(/Missing: left-pad@1\.3\.0 from lock file/);
  expect(cause).not.toMatch(/npm help|complete log|install-strategy|EUSAGE/);
  expect(npmCause('')).toBe('it failed without a word');
});

test("npm's cache is the user's home's once HOME points into the state folder, unless npm says its own", () => {
  expect(npmEnv({ LAB_USER_HOME: '/home/u', HOME: '/s/home' }).npm_config_cache).toBe('/home/u/.npm');
  expect(npmEnv({ LAB_USER_HOME: '/home/u', npm_config_cache: '/c' }).npm_config_cache).toBe('/c');
  expect(npmEnv({ HOME: '/home/u' }).npm_config_cache).toBeUndefined();
});
