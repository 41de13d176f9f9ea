'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('./helper');

// The README's layout tables match the tree: every folder of the project and of lab/ has its
// row, and every row names a folder that is there.
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const rows = (head, after = 0) => {
  const at = readme.indexOf(head, after);
  const out = [];
  for (const line of readme.slice(at).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const m = /^\|\s*`([^`]+)\/`/.exec(line);
    if (m) out.push(m[1]);
  }
  return out.sort();
};
const folders = (dir, skip) =>
  fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('.') && !skip.includes(e.name))
    .map((e) => e.name)
    .sort();

test("the project's folders, each with its row", () => {
  expect(rows('| folder ')).toEqual(folders(ROOT, ['node_modules', 'results', 'test-output']));
});

test("lab/'s folders, each with its row", () => {
  expect(rows('| `lab/` ', readme.indexOf('Inside `lab/`'))).toEqual(folders(path.join(ROOT, 'lab'), []));
});
