'use strict';

// The registry of the lab's own Docker engines: a record whose dockerd is gone is undone by the
// next start (its mounts, data and host changes), a running one stops the start. The registry
// is a temporary folder here; the host snapshots used are the host's current state, so putting
// the host "back" changes nothing on the machine that runs the tests.

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawn } = require('node:child_process');

const registry = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-registry-'));
process.env.LAB_ENGINE_REGISTRY = registry;
const { recoverDeadEngines, hostSnapshot } = require('../../../lab/runtime/private-engine');

function engineDir(withSnapshot) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'engine-'));
  fs.mkdirSync(path.join(dir, 'data', 'overlay2'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'exec'));
  if (withSnapshot) fs.writeFileSync(path.join(dir, 'host-before.json'), JSON.stringify(hostSnapshot()));
  return dir;
}

function record(dir, pid) {
  const file = path.join(registry, `${Buffer.from(dir).toString('base64url')}.json`);
  fs.writeFileSync(file, JSON.stringify({ dir, pid }));
  return file;
}

afterAll(() => fs.rmSync(registry, { recursive: true, force: true }));

test('an engine whose dockerd is gone is undone: its data, exec root and record removed', () => {
  const dir = engineDir(false);
  const file = record(dir, 2 ** 22 + 1); // above Linux's pid_max: never alive
  const lines = [];
  expect(recoverDeadEngines({ log: (l) => lines.push(l) })).toEqual([dir]);
  expect(fs.existsSync(path.join(dir, 'data'))).toBe(false);
  expect(fs.existsSync(path.join(dir, 'exec'))).toBe(false);
  expect(fs.existsSync(file)).toBe(false);
  // No snapshot: nothing proves what the host was, so the host is left alone and nothing said.
  expect(lines).toEqual([]);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("a pid reused by another process is not taken for the engine's dockerd", () => {
  const dir = engineDir(process.getuid && process.getuid() === 0);
  record(dir, process.pid);
  const lines = [];
  expect(recoverDeadEngines({ log: (l) => lines.push(l) })).toEqual([dir]);
  if (process.getuid && process.getuid() === 0) expect(lines.join('\n')).toMatch(/putting the host back/);
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a record cut short is skipped; an engine still running stops the start with its pid', async () => {
  fs.writeFileSync(path.join(registry, 'cut.json'), '{"dir": "/tmp/x", "pi');
  const dir = engineDir(false);
  // A process whose arguments name that engine's data root, as dockerd's do.
  const child = spawn(
    process.execPath,
    ['-e', 'setTimeout(() => {}, 30000)', '--', '--data-root', path.join(dir, 'data')],
    {
      stdio: 'ignore',
    },
  );
  try {
    const file = record(dir, child.pid);
    await new Promise((r) => setTimeout(r, 200));
    expect(() => recoverDeadEngines()).toThrow(
      new RegExp(`another engine of the lab runs \\(dockerd pid ${child.pid}`),
    );
    expect(fs.existsSync(path.join(dir, 'data'))).toBe(true);
    fs.rmSync(file);
  } finally {
    child.kill('SIGKILL');
    fs.rmSync(path.join(registry, 'cut.json'), { force: true });
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// What is put back when the engine stops: dockerd's own links and tables, nothing of another's
// (a cluster's veth, a firewall's table made while the engine ran), as the rulesets read.
test("stopping puts back dockerd's links and tables only: another program's, made meanwhile, are left and said", () => {
  const { restorePlan, tablesOf } = require('../../../lab/runtime/private-engine');
  const table = (head, ...body) => [`table ${head} {`, ...body.map((l) => `\t${l}`), '}'].join('\n');
  const userFilter = table(
    'ip filter',
    'chain INPUT {',
    '\ttype filter hook input priority filter; policy accept;',
    '}',
  );
  const before = { links: ['eth0', 'lo'], ruleset: `${userFilter}\n`, ipForward: '0' };
  // dockerd's chains in the user's table, a nat table of its own; a cluster's veth and a
  // firewall's table made while the engine ran.
  const dockerFilter = table('ip filter', 'chain INPUT {', '}', 'chain DOCKER {', '}', 'chain DOCKER-USER {', '}');
  const dockerNat = table('ip nat', 'chain DOCKER {', '}');
  const firewall = table('inet fw', 'chain input {', '}');
  const now = {
    links: ['br-0123456789ab', 'docker0', 'eth0', 'labcbd667e', 'lo', 'veth1a2b3c4'],
    ruleset: [dockerFilter, dockerNat, firewall].join('\n'),
    ipForward: '1',
  };
  expect([...tablesOf(now.ruleset).keys()]).toEqual(['ip filter', 'ip nat', 'inet fw']);
  const plan = restorePlan(before, now);
  expect(plan.links).toEqual(['br-0123456789ab', 'docker0', 'veth1a2b3c4']);
  expect(plan.othersLinks).toEqual(['labcbd667e']);
  // The user's table as it was, dockerd's own deleted; the firewall's untouched.
  expect(plan.nft).toBe(`delete table ip filter\n${userFilter}\ndelete table ip nat\n`);
  expect(plan.othersTables).toEqual(['inet fw']);
  expect(plan.ipForward).toBe('0');
  // Nothing of dockerd's changed: nothing to do.
  expect(restorePlan(before, { ...before, links: [...before.links, 'labcbd667e'] })).toMatchObject({
    links: [],
    nft: null,
    ipForward: null,
  });
});
