'use strict';

const { NEEDS_SETUP, setUp } = require('../../../lab/cli/bin');
const { scripts, bin } = require('../../../package.json');

test("npx runs the set-up before the commands whose npm script does, read from package.json's scripts", () => {
  expect([...NEEDS_SETUP].sort()).toEqual(
    ['capacity', 'characterize', 'choose', 'cluster', 'deploy', 'scenario', 'signal', 'study'].sort(),
  );
  for (const name of NEEDS_SETUP) expect(scripts[name]).toMatch(/^bash scripts\/setup\.sh run && /);
  // Both names of the package's command are the same entry.
  expect(bin).toEqual({ 'node-deploy-lab': 'lab/cli/bin.js', ndlab: 'lab/cli/bin.js' });
});

test('no set-up for a command that deploys nothing, nor with LAB_SETUP=skip (nothing is started)', () => {
  expect(setUp('status', {})).toBe(0);
  expect(setUp('down', {})).toBe(0);
  expect(setUp('capacity', { LAB_SETUP: 'skip' })).toBe(0);
});
