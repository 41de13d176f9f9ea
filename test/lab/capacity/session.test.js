'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { deploymentSession } = require('../../../lab/capacity/session');
const { cleanup } = require('../../../lab/ownership/cleanups');

// A deployment's session over a runtime that does not come up: the level is recorded as failed,
// with why, and nothing is thrown out of the whole command (a search once lost every
// deployment already searched to one level that printed nothing).
test('a deployment that does not come up: the level is a failed one, with why', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-session-'));
  const downs = [];
  try {
    const s = deploymentSession({
      newRuntime: () => ({ assertNotUp: () => {}, down: async () => downs.push('down') }),
      deploy: async () => {
        throw new Error('port 23000 (nginx) is already in use');
      },
      dir,
      folder: path.join(dir, 'single'),
      level: { words: ['/x'], slos: [], extra: [], context: [] },
      start: 50,
      warmupS: 1,
      holdFor: () => 3,
      fresh: false,
      recoveryWaitS: 10,
      log: () => {},
      tag: 'single',
    });
    const level = await s.measure(50);
    expect(level).toMatchObject({
      rate: 50,
      ok: false,
      failed: 'the deployment did not come up: port 23000 (nginx) is already in use',
    });
    await s.down();
  } finally {
    await cleanup();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
