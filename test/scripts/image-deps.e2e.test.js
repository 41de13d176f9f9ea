'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('../helper');

const SCRIPT = path.join(ROOT, 'scripts', 'image-deps.js');

function inCopy(args) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'image-deps-'));
  fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(dir, 'package.json'));
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { cwd: dir, encoding: 'utf8' });
  const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
  fs.rmSync(dir, { recursive: true, force: true });
  return { r, pkg };
}

describe('scripts/image-deps.js (trims package.json inside an image build)', () => {
  test("keeps only the named dependencies, at package.json's ranges, and no dev ones", () => {
    const original = require('../../package.json');
    const { r, pkg } = inCopy(['express', 'statsd-client']);
    expect(r.status).toBe(0);
    expect(pkg.dependencies).toEqual({
      express: original.dependencies.express,
      'statsd-client': original.dependencies['statsd-client'],
    });
    expect(pkg.devDependencies).toBeUndefined();
    expect(pkg.name).toBe(original.name);
  });

  test('a name that is not a dependency is refused and nothing is changed', () => {
    const { r, pkg } = inCopy(['express', 'left-pad']);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/left-pad/);
    expect(pkg.dependencies.artillery).toBeDefined();
  });
});
