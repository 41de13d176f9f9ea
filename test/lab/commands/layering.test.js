'use strict';

// The commands are shells over what lies below them (issue 85): no command imports another
// command's files, and nothing below lab/commands imports a command. (choose once read
// capacity's plan from its folder, and the fingerprint and the studies did too.)
const fs = require('node:fs');
const path = require('node:path');
const { ROOT } = require('../../helper');

const LAB = path.join(ROOT, 'lab');
const COMMANDS = path.join(LAB, 'commands');
const filesUnder = (dir) =>
  fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : e.name.endsWith('.js') ? [p] : [];
  });
// A command's name: its file (deploy.js) or its folder (capacity/).
const commandOf = (file) => path.relative(COMMANDS, file).split(path.sep)[0].replace(/\.js$/, '');
const requiresOf = (file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/require\('(\.[^']+)'\)/g)].map((m) =>
    path.resolve(path.dirname(file), m[1]),
  );

test("no command imports another command's files; nothing below the commands imports one", () => {
  const crossing = [];
  for (const file of filesUnder(LAB)) {
    const inCommands = file.startsWith(COMMANDS + path.sep);
    // (The entries on top of everything: the dispatcher and the library.)
    if (/lab\/(cli|api)\//.test(file)) continue;
    for (const target of requiresOf(file)) {
      if (!target.startsWith(COMMANDS + path.sep)) continue;
      if (!inCommands || commandOf(target) !== commandOf(file))
        crossing.push(`${path.relative(ROOT, file)} -> ${path.relative(ROOT, target)}`);
    }
  }
  expect(crossing).toEqual([]);
});

test('one deployment recipe: the counts and the stores of a search resolved in one place', () => {
  const spelled = filesUnder(LAB).filter((f) => /countsOf\(values, |storeFlags\(/.test(fs.readFileSync(f, 'utf8')));
  expect(spelled.map((f) => path.relative(ROOT, f))).toEqual(['lab/capacity/plan.js']);
});
