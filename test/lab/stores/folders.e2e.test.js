'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, ownPlace, ROOT, until, forDeploy, stateOf, flagsOf } = require('../../helper');

// The stores' folders (lab/stores/folders.js): a deploy that is interrupted or killed while it
// makes them leaves nothing that `down` does not remove, and says what it removed; a process
// it stopped is never said to be "left alone". The service is the tests' own ledger app.
const LEDGER = path.join(ROOT, 'test', 'fixtures', 'apps', 'ledger');

// Processes of PostgreSQL or Redis started for this state folder (their folder or its token).
function storeProcesses(dirs) {
  const out = [];
  for (const p of fs.readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      if (/\) Z /.test(stat)) continue;
      const cmd = fs.readFileSync(`/proc/${p}/cmdline`, 'utf8');
      const cwd = fs.readlinkSync(`/proc/${p}/cwd`);
      if (/postgres|redis-server|initdb/.test(cmd) && dirs.some((d) => cwd.startsWith(d) || cmd.includes(d)))
        out.push(Number(p));
    } catch {
      // gone, or not readable
    }
  }
  return out;
}

// Starts a deploy with both stores, and signals it once `pattern` is in its log, `delayMs` later.
function deployUntil(place, pattern, signal, delayMs) {
  const child = spawn(
    process.execPath,
    [
      path.join(ROOT, 'lab', 'cli'),
      'deploy',
      'replicated',
      ...flagsOf({ app: LEDGER, with: 'postgres,redis', appSetup: 'npm run migrate' }),
      ...place,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let sentAt = null;
  child.stderr.on('data', (d) => {
    stderr += d;
    if (sentAt === null && pattern.test(stderr)) {
      sentAt = Date.now() + delayMs;
      setTimeout(() => child.kill(signal), delayMs);
    }
  });
  return new Promise((resolve) =>
    child.on('exit', (code, sig) => resolve({ code, signal: sig, stderr: () => stderr, sentAt })),
  );
}

const folderOf = (stderr) => /postgres: making a new database in (.+)\n/.exec(stderr)?.[1];

test('Ctrl-C while initdb runs: the deploy ends within seconds, and its half-made folder is removed', async () => {
  const place = forDeploy(await ownPlace({ ports: 70 }));
  const r = await deployUntil(place, /postgres: making a new database in /, 'SIGINT', 300);
  const dir = folderOf(r.stderr());
  expect(dir).toBeTruthy();
  expect(r.code).toBe(130);
  expect(Date.now() - r.sentAt).toBeLessThan(20000);
  expect(fs.existsSync(dir)).toBe(false);
  expect(storeProcesses([dir, stateOf(place)])).toEqual([]);
}, 120000);

test('the lab killed (-9) while initdb runs: down, with nothing up, removes the folder and says so', async () => {
  const place = forDeploy(await ownPlace({ ports: 70 }));
  const r = await deployUntil(place, /postgres: making a new database in /, 'SIGKILL', 200);
  const dir = folderOf(r.stderr());
  expect(r.signal).toBe('SIGKILL');
  // initdb, the lab's child, goes on alone for a moment.
  await until(() => storeProcesses([dir]).length === 0, 30000);
  expect(fs.existsSync(dir)).toBe(true);
  const down = await lab(['down', '--state-dir', stateOf(place)]);
  expect(down.code).toBe(0);
  expect(down.stdout).toContain(`removed postgres's folder ${dir}, left by a deploy that did not finish`);
  expect(fs.existsSync(dir)).toBe(false);
}, 120000);

test('the lab killed (-9) while the stores start: down stops them, and says no process was left alone', async () => {
  const place = forDeploy(await ownPlace({ ports: 70 }));
  const r = await deployUntil(place, /starting Redis \(redis\)/, 'SIGKILL', 300);
  expect(r.signal).toBe('SIGKILL');
  const dir = folderOf(r.stderr());
  // Redis sets its own title once it is up (`redis-server HOST:PORT`): its record still holds.
  await new Promise((res) => setTimeout(res, 1500));
  const down = await lab(['down', '--state-dir', stateOf(place)]);
  expect(down.code).toBe(0);
  expect(down.stdout).not.toMatch(/left alone/);
  expect(down.stdout).toMatch(/^stopped replicated/m);
  expect(storeProcesses([dir, stateOf(place)])).toEqual([]);
  expect(fs.existsSync(dir)).toBe(false);
}, 120000);
