'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { lab, ownPlace, jsonOf, flagsOf } = require('../../helper');

// The lab runs on the Node pinned in package.json (the npm registry's `node` package, which
// `npm run` puts first on the PATH), whatever Node the machine has, and so does every process
// it starts. Each process of the service says its version itself (the runtime probe), so a
// child that escaped to the machine's Node would show.
const PINNED = require('../../../package.json').dependencies.node;

// A `node` that only leaves a mark and fails, first on a PATH that has no other Node before
// the machine's: a child of the lab that ran `node` by name, not the lab's own Node, meets it.
function trapPath() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-trap-'));
  const marks = path.join(dir, 'escaped');
  fs.writeFileSync(path.join(dir, 'node'), `#!/bin/sh\necho "$0 $*" >> '${marks}'\nexit 97\n`, { mode: 0o755 });
  // (The machine's own folders stay, after the trap: sh, nginx and the rest are found there;
  // npm's node_modules/.bin folders, the pinned Node's among them, go.)
  const machine = process.env.PATH.split(':').filter((d) => !d.includes('node_modules'));
  return { PATH: [dir, ...machine].join(':'), marks };
}

// A service of this test's own, started by a shell line that names `node`.
function shellApp() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'node-version-app-'));
  fs.writeFileSync(
    path.join(dir, 'server.js'),
    "require('node:http').createServer((q, s) => s.end(process.version)).listen(Number(process.env.PORT));\n",
  );
  return dir;
}

test('the tests run on the pinned Node', () => {
  expect(PINNED).toMatch(/^\d+\.\d+\.\d+$/);
  expect(process.versions.node).toBe(PINNED);
});

test.each([
  ['the main job (the reference service, Artillery)', ['ping', 'load', 'single'], {}],
  [
    'your service started by a shell line naming node',
    ['/', 'load', 'single'],
    { app: shellApp(), appCmd: 'exec node server.js', generator: 'fast' },
  ],
])(
  "%s with the machine's node behind a trap on the PATH: every process of the service says the pinned Node, none escaped",
  async (_, words, settings) => {
    const trap = trapPath();
    const r = await lab(
      [
        'scenario',
        ...words,
        ...flagsOf({ ...settings, scale: 0.05, rateScale: 0.1, graphite: false, json: true }),
        ...(await ownPlace({ ports: 70 })),
      ],
      { env: { PATH: trap.PATH }, timeoutMs: 240000 },
    );
    const s = jsonOf(r);
    expect(s.status).toBe('completed');
    expect(s.machine.node).toBe(PINNED);
    expect(s.nodes.nodeVersions).toEqual([PINNED]);
    expect(s.nodes.processes.filter((p) => p.node === 'replica-1').map((p) => p.nodeVersion)).toEqual([PINNED]);
    expect(fs.existsSync(trap.marks) ? fs.readFileSync(trap.marks, 'utf8') : '').toBe('');
  },
  300000,
);
