'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { lab, ownPlace, get, ROOT, errorCode, forDeploy, stateOf, jsonOf, flagsOf } = require('../../helper');
const { isAlive } = require('../../../lab/ownership/procs');

// How the local runtime starts your service (lab/runtime/local.js appProcess, lab/app/):
// start lines as a shell runs them, folders with a space, its dependencies installed without
// touching the state folder, a replica that keeps crashing counted, and whatever it forks
// stopped by `down`. Each app is one of the tests' own, written here: the lab has never seen it.
const SERVER = `const http = require('node:http');
http.createServer((req, res) => res.end(String(process.pid))).listen(Number(process.env.PORT), '127.0.0.1');
`;
const folder = (files, parent = os.tmpdir(), name = null) => {
  const dir = name ? path.join(parent, name) : fs.mkdtempSync(path.join(parent, 'app-'));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return dir;
};

// Deploys `single` of the app, runs `check(state)`, and always takes it down.
async function deployed(dir, extra, check, place = null) {
  place ??= forDeploy(await ownPlace());
  const up = await lab(['deploy', 'single', '--app', dir, ...extra, '--json', ...place]);
  try {
    expect(up.stderr).not.toMatch(/LAB_ERR/);
    expect(up.code).toBe(0);
    await check(jsonOf(up), place);
  } finally {
    expect((await lab(['down', '--state-dir', stateOf(place)])).code).toBe(0);
  }
}

describe('a start line is run as the shell would run it', () => {
  test.each([
    ['a package.json start of two commands', { start: 'npm run build && node server.js' }, []],
    ['a variable of the environment', {}, ['--app-cmd', 'PORT=$PORT node server.js']],
    ['cd, then exec', {}, ['--app-cmd', 'cd . && exec node server.js']],
  ])(
    '%s: every command runs, and the service answers',
    async (_, scripts, extra) => {
      const dir = folder({
        'package.json': JSON.stringify({
          name: 'built',
          scripts: { build: `node -e "require('fs').writeFileSync('built.txt', 'yes')"`, ...scripts },
        }),
        'server.js': SERVER,
      });
      await deployed(dir, extra, async (state) => {
        const r = await get(state.url, { timeoutMs: 5000 });
        expect(r.status).toBe(200);
        if (scripts.start) expect(fs.readFileSync(path.join(dir, 'built.txt'), 'utf8')).toBe('yes');
      });
    },
    90000,
  );
});

test('a folder with a space in its path: your service, and the lab checkout itself', async () => {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'space '));
  const dir = folder(
    { 'package.json': '{"name":"spaced","main":"server.js"}', 'server.js': SERVER },
    parent,
    'dir with space',
  );
  await deployed(dir, [], async (state) => expect((await get(state.url, { timeoutMs: 5000 })).status).toBe(200));

  // The lab's own files in a folder named with a space (its node_modules linked): pm2 once
  // ran every one of its scripts there as `bash -c <path>`.
  const copy = path.join(parent, 'lab checkout');
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) continue;
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  const place = forDeploy(await ownPlace());
  const { runProgram } = require('../../helper');
  const cli = path.join(copy, 'lab', 'cli', 'index.js');
  const up = await runProgram(cli, ['deploy', 'single', '--json', ...place], { timeoutMs: 120000 });
  try {
    expect(up.stderr).not.toMatch(/LAB_ERR/);
    expect(up.code).toBe(0);
    const r = await get(`${jsonOf(up).url}/ping`, { timeoutMs: 5000 });
    expect(r.status).toBe(200);
  } finally {
    expect((await runProgram(cli, ['down', '--state-dir', stateOf(place)])).code).toBe(0);
  }
}, 180000);

test('a daemon your service forks away (setsid, an empty environment, parent 1) is stopped by down', async () => {
  const mark = `lab-test-daemon-${process.pid}-${Date.now()}`;
  const dir = folder({
    'server.js': `require('node:child_process').spawn('/bin/sh', ['-c', 'setsid -f sh -c "sleep 600; true" ${mark} </dev/null >/dev/null 2>&1'], { env: {}, stdio: 'ignore' });
${SERVER}`,
  });
  // (The daemon's $0 names it for this test.)
  const daemons = () =>
    fs
      .readdirSync('/proc')
      .filter((p) => /^\d+$/.test(p))
      .filter((p) => {
        try {
          return fs.readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(mark);
        } catch {
          return false;
        }
      })
      .map(Number);
  let seen = [];
  try {
    await deployed(dir, ['--app-cmd', 'node server.js'], async () => {
      for (let i = 0; i < 50 && !seen.length; i++) {
        seen = daemons();
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(seen).toHaveLength(1);
    });
    // Given a moment to go: down waits for what it signalled.
    expect(seen.filter(isAlive)).toEqual([]);
  } finally {
    // (Only if down failed: this test's own daemon, found by its unique mark.)
    for (const p of daemons()) process.kill(p, 'SIGKILL');
  }
}, 90000);

test('its dependencies install into your npm cache, not the state folder (node lab/cli, a new --state-dir)', async () => {
  // A dependency from a folder of its own: npm ci without the registry, which still writes
  // its cache and logs.
  const dir = folder({
    'package.json': JSON.stringify({ name: 'withdep', main: 'server.js', dependencies: { dep: 'file:./dep' } }),
    'dep/package.json': '{"name":"dep","version":"1.0.0"}',
    'dep/index.js': 'module.exports = 1;',
    'server.js': `require('dep');\n${SERVER}`,
  });
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'ignore' });
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'home-'));
  // As `node lab/cli` starts it: no npm_config_cache from `npm run`.
  const env = { HOME: home, npm_config_cache: undefined, LAB_USER_HOME: undefined };
  const place = await ownPlace();
  const r = await lab(
    ['scenario', '/', 'load', 'single', '--app', dir, '--scale', '0.02', '--generator', 'fast', ...place],
    {
      env,
    },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  expect(r.code).toBe(0);
  expect(fs.existsSync(path.join(dir, 'node_modules', 'dep'))).toBe(true);
  // npm's cache (and its logs) went to the user's home, none into the state folder.
  expect(fs.existsSync(path.join(home, '.npm'))).toBe(true);
  expect(fs.existsSync(path.join(stateOf(place), 'home', '.npm'))).toBe(false);
}, 120000);

test("a lock file out of sync: npm's own cause, exit 2, nothing left", async () => {
  const dir = folder({
    'package.json': JSON.stringify({ name: 'stale', main: 'server.js', dependencies: { 'left-pad': '1.3.0' } }),
    'package-lock.json': JSON.stringify({
      name: 'stale',
      lockfileVersion: 3,
      requires: true,
      packages: { '': { name: 'stale' } },
    }),
    'server.js': SERVER,
  });
  const place = forDeploy(await ownPlace());
  const r = await lab(['deploy', 'single', '--app', dir, ...place]);
  expect(r.code).toBe(1);
  expect(errorCode(r.stderr)).toBe('LAB_ERR_APP');
  expect(r.stderr).toMatch(/Missing: left-pad@1\.3\.0 from lock file/);
  expect(r.stderr).not.toMatch(/npm help ci/);
  expect((await lab(['status', '--state-dir', stateOf(place)])).stdout).not.toMatch(/online/);
}, 90000);

test('a replica that keeps crashing: its restarts in the node table, and a finding', async () => {
  const dir = folder({ 'server.js': `${SERVER}setTimeout(() => process.exit(3), 1500);\n` });
  const place = await ownPlace();
  const r = await lab(
    [
      'scenario',
      '/',
      'load',
      'single',
      ...flagsOf({ app: dir, appCmd: 'node server.js', scale: 0.05, generator: 'fast', json: true }),
      ...place,
    ],
    { timeoutMs: 120000 },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const s = jsonOf(r);
  const row = s.nodes.rows.find((x) => x.node === 'replica-1');
  // A 6 s ramp: it lives 1.5 s at a time (and pm2 waits 200 ms), so at least 2 exits.
  expect(row.restarts).toBeGreaterThanOrEqual(2);
  expect(row.exitCodes['3']).toBe(row.restarts);
  expect(s.nodes.rows.find((x) => x.node === 'nginx').restarts).toBeNull();
  const f = s.findings.find((x) => x.id === 'restarts');
  expect(f.text).toMatch(/replica-1 exited and was restarted \d+ time\(s\) \(exit code 3\)/);
}, 150000);

test('a service slow to start: the time-out names its setting, and its last lines; under the permission model the probe is let in', async () => {
  const place = forDeploy(await ownPlace());
  const slow = folder({
    'server.js': `console.log('warming caches...');\nsetTimeout(() => { ${SERVER} }, 20000);\n`,
  });
  const r = await lab([
    'deploy',
    'single',
    ...flagsOf({ app: slow, appCmd: 'node server.js', appStartTimeout: '2s' }),
    ...place,
  ]);
  expect(r.code).toBe(1);
  expect(errorCode(r.stderr)).toBe('LAB_ERR_APP');
  expect(r.stderr).toMatch(
    /did not answer HTTP within 2s \(ECONNREFUSED\), the limit of --app-start-timeout\. If it is still starting, give it longer/,
  );
  expect(r.stderr).toMatch(/Its last lines: \[LAB_ERR_APP\]\n {2}warming caches\.\.\./);

  // Node's permission model (--permission since Node 22; Node 20's --experimental-permission
  // refused the preloaded probe, lab/runtime/local/ready.js, test/lab/runtime/ready.test.js):
  // on the lab's Node a preloaded file is let in, so the service deploys with its probe; a
  // file of its own it may not read ends it, said with its last lines and no word of the probe.
  const strict = folder({ 'server.js': SERVER });
  const allowed = `--allow-fs-read=${path.join(strict, 'server.js')}`;
  const held = await lab([
    'deploy',
    'single',
    ...flagsOf({ app: strict, appCmd: `node --permission ${allowed} server.js` }),
    ...place,
  ]);
  expect({ code: held.code, err: held.code ? held.stderr.slice(-800) : '' }).toEqual({ code: 0, err: '' });
  expect((await lab(['down', '--state-dir', stateOf(place)])).code).toBe(0);
  const reads = folder({ 'server.js': `require('node:fs').readFileSync('/etc/hostname');\n${SERVER}` });
  const denied = await lab([
    'deploy',
    'single',
    ...flagsOf({ app: reads, appCmd: `node --permission --allow-fs-read=${path.join(reads, 'server.js')} server.js` }),
    ...place,
  ]);
  expect(denied.code).toBe(1);
  expect(denied.stderr).toMatch(/ERR_ACCESS_DENIED/);
  expect(denied.stderr).toMatch(/resource: '\/etc\/hostname'/);
  expect(denied.stderr).not.toMatch(/--no-probe/);
}, 120000);
