'use strict';

// The fault table: what a new (or careless) user tried, one row each. Every row asserts the
// exit code, the error code, that nothing of the lab is left running, and that nothing
// outside the lab's folders changed.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, freePortBase, tmpStateDir, errorCode, portsFree, jsonOf, flagsOf } = require('../../helper');
const { readMarker } = require('../../../lab/ownership/dirs');
const { findOwned } = require('../../../lab/ownership/scan');
const { identify } = require('../../../lab/ownership/identity');
const { ownedNginx, nginxPaths } = require('../../../lab/kinds/common/nginx-process');
const { isAlive } = require('../../../lab/ownership/procs');
const { chartAssets } = require('../../../lab/report/chart-assets');

// Every process of a state folder: those carrying its token, and its nginx.
function running(stateDir) {
  const token = readMarker(stateDir)?.token;
  const pids = findOwned(token);
  const nginx = ownedNginx(nginxPaths(stateDir));
  return nginx ? [...pids, nginx] : pids;
}

// A folder holding a user's own file, and a check that it is untouched.
function userFolder(sub = []) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'user-'));
  const files = [path.join(dir, 'thesis.txt'), ...sub.map((s) => path.join(dir, s, 'keep.txt'))];
  for (const f of files) {
    fs.mkdirSync(path.dirname(f), { recursive: true });
    fs.writeFileSync(f, `mine: ${f}\n`);
  }
  return { dir, intact: () => files.every((f) => fs.readFileSync(f, 'utf8') === `mine: ${f}\n`) };
}

describe('fault table: bad input is refused before anything happens', () => {
  // [args, exit code, error code]; each gets its own empty state folder.
  test.each([
    [['scenario', 'ping', 'load', 'single', '--port-base', '70000'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'load', 'single', '--duration', '10'], 2, 'LAB_ERR_FLAG_VALUE'],
    [['scenario', 'ping', 'endurance', 'single', '--duration', '0'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'endurance', 'single', '--duration', '99999999h'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'endurance', 'single', '--duration', ''], 2, 'LAB_ERR_FLAG_VALUE'],
    [['scenario', 'ping', 'load', 'single', '--target', 'javascript:alert(1)'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'load', 'single', '--target', 'file:///etc/passwd'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'load', 'single', '--scale', '-1'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['scenario', 'ping', 'load', 'single', '--engine', 'compse'], 2, 'LAB_ERR_UNKNOWN_NAME'],
    [['scenario', 'ping', 'load', 'single', 'extra'], 2, 'LAB_ERR_UNEXPECTED_ARG'],
    [['scenario', 'ping', 'load', 'replicated', '--balancer', 'none'], 2, 'LAB_ERR_GENERATOR_ASK'],
    [['scenario', 'ping', 'load', 'single', '--balancer', 'nginx-l7'], 2, 'LAB_ERR_UNKNOWN_NAME'],
    [['deploy', 'single', '--cap', 'replica'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--cap', 'replica=0%'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--cap', 'replica=5%,1K'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--cap', 'edge=5%'], 2, 'LAB_ERR_UNKNOWN_NAME'],
    // A method the kind cannot do (the lab's node balancer is round-robin only).
    [['deploy', 'single', '--balancer', 'node', '--method', 'hash'], 2, 'LAB_ERR_UNKNOWN_NAME'],
    // Caps this machine cannot give: more cores than it has, more memory than it has.
    [['deploy', 'single', '--cap', `replica=${(os.cpus().length + 1) * 100}%`], 2, 'LAB_ERR_FLAG_VALUE'],
    [['deploy', 'single', '--cap', 'replica=10%,99999999G'], 2, 'LAB_ERR_FLAG_VALUE'],
    [['deploy', 'single', '--cap', 'replica=10%,1e21G'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'cdn', '--edges', '99'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--host', 'bad host'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--host', ''], 2, 'LAB_ERR_FLAG_VALUE'],
    [['deploy', 'single', '--replicas', '32', '--workers', '32'], 2, 'LAB_ERR_TOO_MANY'],
    [['deploy', 'single', '--replicas', '1.5'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['deploy', 'single', '--keep'], 2, 'LAB_ERR_UNKNOWN_FLAG'],
    [['study', 'plan', '--plan'], 2, 'LAB_ERR_UNKNOWN_NAME'], // "plan" is not a study (--plan is the flag)
    [['study', 'cdn', 'course'], 2, 'LAB_ERR_UNEXPECTED_ARG'],
    [['study', '--plan', '--duration', '1m', '--scenarios', 'load'], 2, 'LAB_ERR_FLAG_VALUE'],
    [['status', 'foo'], 2, 'LAB_ERR_UNEXPECTED_ARG'],
    [['down', 'foo'], 2, 'LAB_ERR_UNEXPECTED_ARG'],
    [['characterize', 'bbox1', '--cycles', '1'], 2, 'LAB_ERR_INVALID_VALUE'],
    [['characterize', 'http://127.0.0.1:1/', '--key', 'x'], 2, 'LAB_ERR_FLAG_VALUE'],
    [[], 2, 'LAB_ERR_MISSING_ARG'],
  ])('%j exits %i with %s and starts nothing', async (args, exit, code) => {
    const stateDir = tmpStateDir();
    const r = await lab([...args, ...(args.length ? ['--state-dir', stateDir] : [])]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit, code });
    expect(fs.readdirSync(stateDir)).toEqual([]);
    expect(running(stateDir)).toEqual([]);
  });

  test('--force lets a large deployment through the check (printed only, not started)', async () => {
    const r = await lab([
      'scenario',
      'ping',
      'load',
      'single',
      ...flagsOf({ replicas: 32, workers: 32, force: true, print: true }),
    ]);
    expect(r.code).toBe(0);
  });

  test('a bad port base with a --run-dir holding a user file: refused, the file kept', async () => {
    const user = userFolder();
    const r = await lab(['scenario', 'ping', 'load', 'single', '--port-base', '70000', '--run-dir', user.dir]);
    expect(r.code).toBe(2);
    expect(user.intact()).toBe(true);
    // A good port base: the folder is still not the lab's to empty.
    const r2 = await lab(['scenario', 'ping', 'load', 'single', '--run-dir', user.dir, '--state-dir', tmpStateDir()]);
    expect({ exit: r2.code, code: errorCode(r2.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_OURS' });
    expect(r2.stderr).toContain(user.dir);
    expect(user.intact()).toBe(true);
  });

  test('a --state-dir holding nginx/ and logs/ of the user: refused by deploy and scenario, contents kept', async () => {
    const user = userFolder(['nginx', 'logs']);
    const base = await freePortBase();
    for (const args of [
      ['deploy', 'single'],
      ['scenario', 'ping', 'load', 'single', '--scale', '0.05'],
      ['characterize', 'bbox1'],
    ]) {
      const r = await lab([...args, '--state-dir', user.dir, '--port-base', String(base)]);
      expect({ args, exit: r.code, code: errorCode(r.stderr) }).toEqual({ args, exit: 2, code: 'LAB_ERR_NOT_OURS' });
    }
    expect(user.intact()).toBe(true);
    expect(await portsFree(base)).toBe(true);
  });

  test("a study --dir that is not the lab's: refused before --fresh deletes anything", async () => {
    const user = userFolder(['runs']);
    const r = await lab(['study', '--fresh', '--dir', user.dir, '--endpoints', 'ping', '--scale', '0.01']);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_OURS' });
    expect(user.intact()).toBe(true);
  });
});

describe('fault table: reports of malformed or crafted results', () => {
  const phase = { name: 'p', startedAt: '2026-01-01T00:00:00.000Z', durationS: 10, targetRate: { mean: 1 } };
  const summary = {
    endpoint: 'ping',
    scenario: 'load',
    status: 'completed',
    startedAt: '2026-01-01T00:00:00.000Z',
    phases: [phase],
    errors: {},
    scenariosLaunched: 1,
    requestsCompleted: 1,
    scenariosFailed: 0,
  };
  const runDir = (files) => {
    const dir = tmpStateDir();
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return dir;
  };

  test.each([
    ['summary.json is not JSON', { 'summary.json': '{"phases": [' }, 'summary.json'],
    ['summary.json is a list', { 'summary.json': '[]' }, 'summary.json'],
    ['phases is not a list', { 'summary.json': JSON.stringify({ ...summary, phases: 'x' }) }, 'summary.json'],
    [
      'records.jsonl has a broken line',
      { 'summary.json': JSON.stringify(summary), 'records.jsonl': '{"type":"start"}\nnot json\n{"a":1}\n' },
      'records.jsonl',
    ],
    [
      'nodes.jsonl holds the wrong shape',
      { 'summary.json': JSON.stringify(summary), 'nodes.jsonl': '{"at":1,"nodes":5}\n{"at":2,"nodes":null}\n' },
      path.sep,
    ],
  ])('%s: one line naming the file, exit 1', async (_, files, named) => {
    const dir = runDir(files);
    const r = await lab(['report', dir]);
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 1, code: 'LAB_ERR_RESULTS' });
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain(named);
    expect(r.stderr).not.toMatch(/\n\s+at /);
  });

  test('LAB_DEBUG=1 shows the stack', async () => {
    const r = await lab(['report', runDir({ 'summary.json': '{' })], { env: { LAB_DEBUG: '1' } });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/\n\s+at /);
  });

  test('every value of a crafted summary.json reaches the page escaped, numbers too', async () => {
    const evil = '<script>alert(1)</script>';
    const crafted = {
      ...summary,
      endpoint: evil,
      status: evil,
      durationS: evil,
      scenariosLaunched: evil,
      requestsCompleted: evil,
      scenariosFailed: evil,
      meanResponseRate: evil,
      responseTimeMs: { median: evil, p95: evil, p99: evil, max: evil },
      errors: { [evil]: evil },
      phases: [{ ...phase, name: evil, durationS: evil, targetRate: { mean: evil }, achievedRate: evil }],
      deployment: { name: evil, label: evil, replicas: evil, workers: evil },
      machine: { hostname: evil, cpuModel: evil, cores: evil, memoryGiB: evil, node: evil },
      monitoring: { x: { ok: false, reason: evil } },
    };
    const dir = runDir({ 'summary.json': JSON.stringify(crafted) });
    const r = await lab(['report', dir]);
    expect(r.code).toBe(0);
    const html = fs.readFileSync(path.join(dir, 'report.html'), 'utf8');
    // The page's only scripts are the lab's own chart block, as lab/report/chart-assets.js
    // writes it (uPlot and the lab's chart script); no value of the file became one.
    const own = String(chartAssets());
    expect(html.split(own)).toHaveLength(2);
    expect(html.replace(own, '')).not.toContain('<script');
    expect(html).toContain('&lt;script&gt;');
  });
});

describe('fault table: a deployment whose state goes wrong', () => {
  // One real deployment per test; each test is its own state folder and ports.
  async function deployed() {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const r = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
    expect(r.code).toBe(0);
    const pids = running(stateDir);
    expect(pids.length).toBeGreaterThanOrEqual(4); // pm2, bbox, replica, nginx (and its workers)
    return { stateDir, base, pids, stateFile: path.join(stateDir, 'state.json') };
  }

  test.each([
    ['corrupted', (f) => fs.writeFileSync(f, '{"runtime": "local", "deplo')],
    ['deleted', (f) => fs.rmSync(f)],
  ])('state.json %s while up: status tells, deploy refuses, down stops every process', async (_, damage) => {
    const d = await deployed();
    try {
      damage(d.stateFile);
      const s = await lab(['status', '--state-dir', d.stateDir]);
      expect(s.code).toBe(0);
      expect(s.stdout).toMatch(/lab processes no record names are running/);
      const again = await lab(['deploy', 'multi', '--state-dir', d.stateDir, '--port-base', String(d.base + 100)]);
      expect({ exit: again.code, code: errorCode(again.stderr) }).toEqual({ exit: 1, code: 'LAB_ERR_ALREADY_UP' });
      expect(d.pids.every(isAlive)).toBe(true);
    } finally {
      const down = await lab(['down', '--state-dir', d.stateDir]);
      expect(down.code).toBe(0);
    }
    expect(running(d.stateDir)).toEqual([]);
    expect(d.pids.filter(isAlive)).toEqual([]);
    expect(await portsFree(d.base)).toBe(true);
  });

  test('state.json naming an unrelated process: never signalled, deploy goes ahead', async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    // An unrelated process, and a state.json from "before a reboot" that names its pid.
    const bystander = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
    try {
      const id = identify(bystander.pid) || { pid: bystander.pid };
      const old = {
        runtime: 'local',
        deployment: { name: 'single', label: 'single', replicas: 1, workers: 1 },
        pids: { pm2: bystander.pid, nginx: bystander.pid },
        processes: [{ name: 'replica-1', pid: bystander.pid }],
        owned: { pm2: { ...id, startTime: '1' }, 'replica-1': { ...id, bootId: 'another-boot' } },
      };
      fs.writeFileSync(path.join(stateDir, '.lab-owned'), JSON.stringify({ token: 'old' }));
      fs.writeFileSync(path.join(stateDir, 'state.json'), JSON.stringify(old));
      const s = await lab(['status', '--state-dir', stateDir, '--json']);
      expect(jsonOf(s).up).toBe(false);
      const r = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)]);
      expect(r.code).toBe(0);
      expect(r.stderr).toMatch(/never signalled/);
      const down = await lab(['down', '--state-dir', stateDir]);
      expect(down.code).toBe(0);
      // And a down on the stale file alone leaves it be too.
      fs.writeFileSync(path.join(stateDir, 'state.json'), JSON.stringify(old));
      const down2 = await lab(['down', '--state-dir', stateDir]);
      expect(down2.code).toBe(0);
      expect(down2.stdout).toMatch(/left alone/);
      expect(isAlive(bystander.pid)).toBe(true);
      expect(running(stateDir)).toEqual([]);
    } finally {
      bystander.kill('SIGKILL');
    }
  });

  test('status never starts pm2, even with its socket gone; nothing lands in $HOME', async () => {
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'home-'));
    const stateDir = tmpStateDir();
    const base = await freePortBase();
    const env = { HOME: home };
    const r = await lab(['deploy', 'single', '--state-dir', stateDir, '--port-base', String(base)], { env });
    expect(r.code).toBe(0);
    try {
      const before = running(stateDir);
      fs.rmSync(path.join(stateDir, 'pm2', 'rpc.sock'), { force: true });
      fs.rmSync(path.join(stateDir, 'pm2', 'pub.sock'), { force: true });
      const s = await lab(['status', '--state-dir', stateDir], { env });
      expect(s.code).toBe(0);
      expect(running(stateDir).sort()).toEqual(before.sort());
    } finally {
      expect((await lab(['down', '--state-dir', stateDir], { env })).code).toBe(0);
    }
    expect(running(stateDir)).toEqual([]);
    expect(fs.readdirSync(home)).toEqual([]);
  });
});
