'use strict';

const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ROOT } = require('./helper');

// Lint and format are part of `npm test`: one command tells whether the tree is fit to land.
// Both run as child processes: ESLint 10 and Prettier 3 load their configs with dynamic
// import(), which jest's module sandbox refuses.
function run(bin, args) {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', bin), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 120000,
  });
  return { code: r.status, output: `${r.stdout}${r.stderr}`.trim() };
}

describe('code style', () => {
  test('eslint finds no problems', () => {
    const r = run('eslint/bin/eslint.js', ['.']);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });

  test('prettier finds every file formatted', () => {
    const r = run('prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '.']);
    expect(r.output).toBe('');
    expect(r.code).toBe(0);
  });
});
