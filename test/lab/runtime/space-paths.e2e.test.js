'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { ROOT, get, freePortBase, runProgram, errorCode, jsonOf } = require('../../helper');

// Paths with a space, everywhere the lab renders one into a config: the lab's own checkout in
// a folder named with a space (its default state folder, .lab, inside it) and a --state-dir
// with one, through every local balancer and edge kind and both data stores. Unquoted, nginx
// refused its own config (`invalid number of arguments in "pid" directive`) and the failed
// deploy left a 39 MB PostgreSQL cluster behind.
const LEDGER = path.join(ROOT, 'test', 'fixtures', 'apps', 'ledger');
let parent;
let cli;
let stateDir;

beforeAll(() => {
  parent = fs.mkdtempSync(path.join(os.tmpdir(), 'space paths '));
  const copy = path.join(parent, 'lab copy');
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: ROOT,
    encoding: 'utf8',
  })
    .split('\0')
    .filter(Boolean);
  for (const f of files) {
    if (!fs.existsSync(path.join(ROOT, f))) continue;
    fs.mkdirSync(path.dirname(path.join(copy, f)), { recursive: true });
    fs.copyFileSync(path.join(ROOT, f), path.join(copy, f));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  cli = path.join(copy, 'lab', 'cli', 'index.js');
  stateDir = path.join(parent, 'my state');
});

const run = (args, timeoutMs = 180000) => runProgram(cli, args, { timeoutMs });

// Deploys, checks an answer through the entry, and takes it down: nothing of it left.
async function throughEntry(args, state = ['--state-dir', stateDir], pathname = '/ping') {
  const base = String(await freePortBase(80));
  const up = await run(['deploy', ...args, '--port-base', base, '--json', ...state]);
  try {
    expect({ code: up.code, error: up.stderr.split('\n').filter((l) => /LAB_ERR/.test(l)) }).toEqual({
      code: 0,
      error: [],
    });
    const r = await get(`${jsonOf(up).url}${pathname}`, { timeoutMs: 5000 });
    expect(r.status).toBeLessThan(500);
  } finally {
    const down = await run(['down', ...state]);
    expect(down.code).toBe(0);
  }
}

test('the checkout in a folder with a space, its default state folder inside it: single behind nginx', async () => {
  await throughEntry(['single'], []);
  expect(fs.existsSync(path.join(parent, 'lab copy', '.lab', 'nginx', 'nginx.conf'))).toBe(true);
}, 200000);

test.each([
  ['HAProxy at L7', ['replicated', '--balancer', 'haproxy']],
  ['HAProxy at L4', ['replicated', '--balancer', 'haproxy-l4']],
  ['nginx at L4', ['replicated', '--balancer', 'nginx-l4']],
  ['the node balancer', ['replicated', '--balancer', 'node']],
  ['Caddy, with Varnish edges', ['cdn', '--balancer', 'caddy', '--edge-kind', 'varnish', '--edges', '2']],
  ['nginx edges', ['cdn', '--edges', '2']],
])('a --state-dir with a space: %s', async (_, args) => throughEntry(args), 200000);

test('a --state-dir with a space: your service with PostgreSQL and Redis, their data kept and refused', async () => {
  const app = ['single', '--app', LEDGER, '--with', 'postgres,redis'];
  await throughEntry([...app, '--app-setup', 'npm run migrate', '--keep-data'], undefined, '/totals');
  // Kept data is never dropped in silence: a deploy without --keep-data is refused (exit 2),
  // naming where it is and the two ways on, before anything starts.
  const refused = await run(['deploy', ...app, '--port-base', String(await freePortBase(80)), '--state-dir', stateDir]);
  expect(refused.code).toBe(2);
  expect(errorCode(refused.stderr)).toBe('LAB_ERR_KEPT_DATA');
  // (Its folder: in the state folder, or in /var/tmp when PostgreSQL's own user cannot enter
  // it, as a 0700 temporary folder here.)
  const kept = /are in (\/.*?\/postgres) and /.exec(refused.stderr)?.[1];
  expect(fs.existsSync(path.join(kept, 'data', 'PG_VERSION'))).toBe(true);
  expect(refused.stderr).toMatch(
    /deploy with --keep-data to use them, or delete them first with `npm run down -- --state-dir '.*my state' --delete-data`/,
  );
  const down = await run(['down', '--state-dir', stateDir, '--delete-data']);
  expect(down.stdout).toContain(`deleted postgres's kept data in ${kept} (--delete-data)`);
  expect(fs.existsSync(kept)).toBe(false);
}, 300000);
