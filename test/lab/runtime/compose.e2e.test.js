'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, freePortBase } = require('../../helper');

// The compose engine's failures, on any machine: the real engine is exercised by
// `npm run test:containers` (test/containers/).
describe('--engine', () => {
  test('an unknown engine is a usage error naming the valid ones, before anything starts', async () => {
    const stateDir = tmpStateDir();
    const r = await lab(['deploy', 'single', '--engine', 'kubernetes', '--state-dir', stateDir]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/unknown engine "kubernetes".*valid: local, compose/);
    const s = await lab(['scenario', 'ping', 'load', 'single', '--engine', 'compse', '--state-dir', stateDir]);
    expect(s.code).toBe(2);
    expect(s.stderr).toMatch(/did you mean "compose"/);
    expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  });

  test('compose without docker-compose installed: one message with the install command, nothing left', async () => {
    const stateDir = tmpStateDir();
    const r = await lab(
      ['deploy', 'single', '--engine', 'compose', '--state-dir', stateDir, '--port-base', String(await freePortBase())],
      { env: { PATH: '/nonexistent' } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/docker-compose is not installed.*apt-get install -y docker\.io docker-compose/);
    expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  });

  test('compose with no engine answering: says so, nothing left', async () => {
    const stateDir = tmpStateDir();
    const r = await lab(
      ['deploy', 'single', '--engine', 'compose', '--state-dir', stateDir, '--port-base', String(await freePortBase())],
      { env: { DOCKER_HOST: `unix://${stateDir}/no-engine.sock` } },
    );
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/container engine is not usable: no engine answers/);
    expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  });
});
