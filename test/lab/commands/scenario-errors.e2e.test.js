'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, freePortBase, tmpStateDir, runProgram, errorCode, jsonOf, flagsOf } = require('../../helper');
const { isAlive, tree } = require('../../../lab/ownership/procs');
const { tcpFree } = require('../../../lab/topology/ports');

describe('npm run scenario: bad input, failures, interruption', () => {
  // Each row: the arguments, the code, and the word the message must name (the flag or value).
  test.each([
    [['pnig', 'load', 'single'], 'LAB_ERR_UNKNOWN_NAME', 'ping'],
    [['ping', 'lod', 'single'], 'LAB_ERR_UNKNOWN_NAME', 'load'],
    [['ping', 'load', 'singel'], 'LAB_ERR_UNKNOWN_NAME', 'single'],
    [['ping', 'load'], 'LAB_ERR_MISSING_ARG', '<deployment>'],
    [['ping', 'load', 'single', '--scale', '0'], 'LAB_ERR_INVALID_VALUE', '--scale'],
    [['ping', 'load', 'single', '--rate-scale', 'x'], 'LAB_ERR_INVALID_VALUE', '--rate-scale'],
    [['ping', 'endurance', 'single', '--duration', '5 minutes'], 'LAB_ERR_INVALID_VALUE', '--duration'],
    [['ping', 'load', 'single', '--target', 'not a url'], 'LAB_ERR_INVALID_VALUE', '--target'],
    [['ping', 'load', 'single', '--frobnicate'], 'LAB_ERR_UNKNOWN_FLAG', '--frobnicate'],
    // The signal endpoint has participants and its own engine.
    [['signal', 'load', 'single', '--generator', 'fast'], 'LAB_ERR_FLAG_VALUE', '--generator signal'],
    [['ping', 'load', 'single', '--generator', 'signal'], 'LAB_ERR_FLAG_VALUE', 'signal endpoint'],
    [['signal', 'load', 'single', '--connections', '5'], 'LAB_ERR_GENERATOR_FLAG', '--connections'],
    [['signal', 'load', 'single', '--print'], 'LAB_ERR_FLAG_VALUE', 'Artillery script'],
    [['ping', 'load', 'single', '--work-n', '5'], 'LAB_ERR_FLAG_VALUE', 'work endpoint'],
    [['work', 'load', 'single', '--work-n', '0'], 'LAB_ERR_INVALID_VALUE', '--work-n'],
  ])('%j exits 2 with %s naming %s', async (args, code, named) => {
    const r = await lab(['scenario', ...args, '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe(code);
    expect(r.stderr).toContain(named);
    expect(r.stderr.trim().split('\n')[0]).toMatch(/^lab: /);
  });

  test('--print shows a plain Artillery script and starts nothing', async () => {
    const r = await lab(['scenario', 'bbox2', 'spikes', 'single', '--print', '--state-dir', tmpStateDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/arrivalRate: 4/);
    expect(r.stdout).toMatch(/timeout: 10/);
    expect(r.stdout).not.toMatch(/plugins|processor/);
    // --work-n changes what each /work request asks, and nothing else of the script.
    const w = await lab([
      'scenario',
      'work',
      'load',
      'single',
      ...flagsOf({ workN: 5, print: true, stateDir: tmpStateDir() }),
    ]);
    expect(w.stdout).toMatch(/url: \/work\?n=5\n/);
  });

  test('a failed deploy exits non-zero and leaves nothing running', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const r = await lab(
      ['scenario', 'ping', 'load', 'replicated', ...flagsOf({ scale: 0.05, portBase: base, stateDir: stateDir })],
      // nginx -t fails on a config that cannot be loaded: here, a binary that is not nginx.
      { env: { LAB_NGINX: '/bin/false' } },
    );
    expect(r.code).toBe(1);
    expect(errorCode(r.stderr)).toBe('LAB_ERR_NGINX_CONFIG');
    expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
    for (let p = base; p < base + 15; p++) expect(await tcpFree(p, '127.0.0.1')).toBe(true);
  });

  test('Ctrl-C mid-run stops everything and keeps a partial summary marked interrupted', async () => {
    const stateDir = tmpStateDir();
    const resultsDir = tmpStateDir();
    const base = await freePortBase();
    const { spawn } = require('node:child_process');
    const child = spawn(
      process.execPath,
      ['lab/cli', 'scenario', 'bbox1', 'endurance', 'multi', '--duration', '60s', '--rate-scale', '0.1'].concat([
        ...flagsOf({ portBase: base, stateDir: stateDir, resultsDir: resultsDir }),
      ]),
      { cwd: path.join(__dirname, '..', '..', '..'), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    let gone = false;
    const exited = new Promise((r) => child.on('exit', (code) => r(code, (gone = true))));
    // Wait until the run is under way and one Artillery interval has been reported: the
    // interruption is then mid-run. (Deploying three workers and starting Artillery once took
    // more than the 50 s this waited; the run was then stopped before its first report.)
    const deadline = Date.now() + 180000;
    while (!/done [1-9]\d*/.test(stderr) && !gone && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(gone ? stderr : 'running').toBe('running');
    expect(/done [1-9]\d*/.test(stderr) ? 'reported' : stderr).toBe('reported');
    const state = JSON.parse(fs.readFileSync(path.join(stateDir, 'state.json'), 'utf8'));
    const pids = [state.pids.pm2, state.pids.nginx].flatMap((p) => tree(p));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(pids.filter(isAlive)).toEqual([]);
    for (let p = base; p < base + 11; p++) expect(await tcpFree(p, '127.0.0.1')).toBe(true);
    const [dir] = fs.readdirSync(resultsDir);
    const summary = JSON.parse(fs.readFileSync(path.join(resultsDir, dir, 'summary.json'), 'utf8'));
    expect(summary.status).toBe('interrupted');
    expect(summary.scenariosLaunched).toBeGreaterThan(0);
    expect(summary.responseTimeMs).toBeNull();
    // No Artillery left either.
    expect(stderr).toMatch(/interrupted: partial results/);
  }, 240000);

  test('--target runs against a system that is already up, with no deploy', async () => {
    const { startProgram, freePort } = require('../../helper');
    const port = await freePort();
    const svc = await startProgram('service', [], {
      env: { PORT: String(port) },
      ready: (e) => e.includes('listening'),
    });
    try {
      const resultsDir = fs.mkdtempSync(path.join(tmpStateDir(), 'r-'));
      const r = await lab([
        'scenario',
        'ping',
        'endurance',
        'single',
        ...flagsOf({
          duration: '3s',
          rateScale: 0.05,
          target: `http://127.0.0.1:${port}`,
          json: true,
          resultsDir: resultsDir,
          stateDir: tmpStateDir(),
        }),
      ]);
      expect(r.code).toBe(0);
      const s = jsonOf(r);
      expect(s.deployment).toBeNull();
      expect(s.codes['200']).toBe(s.requestsCompleted);
      expect(s.requestsCompleted).toBeGreaterThan(20);
    } finally {
      await svc.stop();
    }
  });
});

module.exports = { runProgram };
