'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, ownPlace, errorCode, ROOT, until, forDeploy, flagsOf } = require('../../helper');

// Your service's set-up (--app-setup, lab/app/setup.js): every wait on it has a limit that is
// said, a Ctrl-C ends it within a stated grace whatever it does with SIGTERM, and what it
// printed comes back as bounded last lines. The app is the tests' own, written here.
const SERVER = `require('node:http').createServer((q, s) => s.end('ok')).listen(Number(process.env.PORT), '127.0.0.1');\n`;
const app = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'setup-app-'));
  fs.writeFileSync(path.join(dir, 'server.js'), SERVER);
  return dir;
};
// `deploy single` of that app with this set-up (and its other flags), in a place of its own.
const deployWith = async (setup, more = {}) => [
  'deploy',
  'single',
  ...flagsOf({ app: app(), appCmd: 'node server.js', appSetup: setup, ...more }),
  ...forDeploy(await ownPlace()),
];

// The set-up's own processes, found by a mark in their command line (the lab's own, which
// has it as an argument, left out).
const marked = (mark, lab) =>
  fs
    .readdirSync('/proc')
    .filter((n) => /^\d+$/.test(n) && Number(n) !== lab)
    .filter((n) => {
      try {
        const stat = fs.readFileSync(`/proc/${n}/stat`, 'utf8');
        return fs.readFileSync(`/proc/${n}/cmdline`, 'utf8').includes(mark) && !/\) Z /.test(stat);
      } catch {
        return false;
      }
    });

test('Ctrl-C during a set-up that ignores SIGTERM: its group is killed after the grace, said, exit 130, nothing left', async () => {
  const mark = `setup-mark-${process.pid}-${Date.now()}`;
  const ready = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'setup-ready-')), 'trapped');
  const args = await deployWith(`trap "" TERM INT HUP; touch ${ready}; sleep 45 # ${mark}`);
  const child = spawn(process.execPath, [path.join(ROOT, 'lab', 'cli'), ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', (code) => r(code)));
  // Once its trap is set (a SIGTERM before it would end the shell at once, rightly unsaid).
  expect(await until(() => fs.existsSync(ready), 60000)).toBe(true);
  const sent = Date.now();
  child.kill('SIGINT');
  const code = await exited;
  // The grace is 3 s; the rest of the stop (pm2, the deployment) a few more, on a busy machine.
  expect(Date.now() - sent).toBeLessThan(20000);
  expect(code).toBe(130);
  expect(stderr).toMatch(/did not stop within 3 s of SIGTERM: killing its process group \(SIGKILL\)/);
  expect(marked(mark, child.pid)).toEqual([]);
}, 120000);

test('a set-up past --app-setup-timeout is stopped, and the message names the limit and the flag', async () => {
  const r = await lab(await deployWith('echo migrating; sleep 30', { appSetupTimeout: '2s' }));
  expect(r.code).toBe(1);
  expect(errorCode(r.stderr)).toBe('LAB_ERR_APP_SETUP');
  expect(r.stderr).toMatch(
    /it ran past its limit of 2s and was stopped \(SIGTERM\); give it longer with --app-setup-timeout/,
  );
  expect(r.stderr).toMatch(/its last lines: \[LAB_ERR_APP_SETUP\]\n {2}migrating/);
}, 60000);

test("a failing set-up's output comes back as its last lines, each cut to a stated width", async () => {
  // One line of 3 MB, then the cause.
  const r = await lab(
    await deployWith(`node -e "process.stdout.write('x'.repeat(3e6) + '\\\\nthe cause\\\\n')"; exit 4`),
  );
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/exit code 4; its last lines:/);
  expect(r.stderr).toMatch(/x{240}\.\.\. \(\d+ more characters\)\n {2}the cause/);
  expect(r.stderr.length).toBeLessThan(2000);
}, 60000);
