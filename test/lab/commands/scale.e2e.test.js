'use strict';

const { lab, tmpStateDir, errorCode } = require('../../helper');

// Scaling itself runs on a real swarm, in the container smoke test.
describe('npm run scale: bad input', () => {
  test.each([
    [['replica=0'], 'LAB_ERR_USAGE', 2],
    [['replicas=x'], 'LAB_ERR_USAGE', 2],
    [['workers=3'], 'LAB_ERR_USAGE', 2],
    [[], 'LAB_ERR_MISSING_ARG', 2],
    [['replica=3'], 'LAB_ERR_NOT_UP', 1],
  ])('%j exits %s', async (args, code, exit) => {
    const r = await lab(['scale', ...args, '--state-dir', tmpStateDir()]);
    expect(errorCode(r.stderr)).toBe(code);
    expect(r.code).toBe(exit);
  });
});
