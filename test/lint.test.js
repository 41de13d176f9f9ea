'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ESLint } = require('eslint');
const prettier = require('prettier');
const { ROOT } = require('./helper');

// Lint and format are part of `npm test`: one command tells whether the tree is fit to land.
const SOURCE_DIRS = ['service', 'bbox', 'common', 'lab', 'artillery', 'scripts', 'test', 'bench', 'nginx', 'compose'];

function sourceFiles(exts) {
  const out = [];
  const walk = (dir) => {
    if (!fs.existsSync(dir)) return;
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (exts.some((x) => e.name.endsWith(x))) out.push(p);
    }
  };
  SOURCE_DIRS.forEach((d) => walk(path.join(ROOT, d)));
  for (const f of fs.readdirSync(ROOT)) if (exts.some((x) => f.endsWith(x))) out.push(path.join(ROOT, f));
  return out;
}

describe('code style', () => {
  test('eslint finds no problems', async () => {
    const eslint = new ESLint({ cwd: ROOT });
    const results = await eslint.lintFiles(sourceFiles(['.js']));
    const problems = results.flatMap((r) =>
      r.messages.map((m) => `${path.relative(ROOT, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`),
    );
    expect(problems).toEqual([]);
  });

  test('prettier finds every file formatted', async () => {
    const unformatted = [];
    for (const file of sourceFiles(['.js', '.json', '.md', '.yml', '.yaml'])) {
      if (file.endsWith('package-lock.json')) continue;
      const options = (await prettier.resolveConfig(file)) || {};
      const text = fs.readFileSync(file, 'utf8');
      if (!(await prettier.check(text, { ...options, filepath: file }))) unformatted.push(path.relative(ROOT, file));
    }
    expect(unformatted).toEqual([]);
  });
});
