'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { report } = require('../../scripts/import-cycles');
const { ROOT } = require('../helper');

// A tree of folders written for the test: { 'a/x.js': "require('../b/y')" ... }.
function tree(files) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cycles-'));
  for (const [f, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), text);
  }
  return dir;
}

test('lab/ has no import cycle between its folders, nor between its files', () => {
  const r = report(path.join(ROOT, 'lab'));
  expect(r.text).toBe('');
  expect(r.cycles).toEqual([]);
  expect(r.fileCycles).toEqual([]);
});

test('a cycle through three folders is found, each edge named with the require that makes it', () => {
  const dir = tree({
    'a/x.js': "require('../b/y');",
    'b/y.js': "require('../c/z.js');",
    'c/z.js': "require('../a');",
    'a/index.js': "require('./x');",
    'd/w.js': "require('../a/x');",
    'top.js': "require('./d/w');",
  });
  try {
    const r = report(dir);
    expect(r.cycles).toEqual([['a', 'b', 'c']]);
    expect(r.text).toContain('a -> b: a/x.js -> b/y.js');
    expect(r.text).toContain('c -> a: c/z.js -> a/index.js');
    expect(r.text).not.toContain('d ->');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('requires inside one folder are no folder edges, and of packages no edges; two files of one folder that import each other are a file cycle', () => {
  const dir = tree({ 'a/x.js': "require('./y'); require('express');", 'a/y.js': "require('./x');" });
  try {
    const r = report(dir);
    expect(r.cycles).toEqual([]);
    expect(r.fileCycles).toEqual([['a/x.js', 'a/y.js']]);
    expect(r.text).toContain('import cycle between the files a/x.js, a/y.js');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// (lab/runtime/compose.js and compose-replicas.js once imported each other, the second
// lazily inside a function: a require inside a function is an edge too.)
test('a lazy require inside a function closes a file cycle', () => {
  const dir = tree({
    'r/compose.js': "const { add } = require('./replicas');",
    'r/replicas.js': "function f() { const { run } = require('./compose'); return run; }",
    'r/other.js': "require('./compose');",
  });
  try {
    const r = report(dir);
    expect(r.fileCycles).toEqual([['r/compose.js', 'r/replicas.js']]);
    expect(r.text).toContain('r/replicas.js -> r/compose.js');
    expect(r.text).not.toContain('r/other.js ->');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
