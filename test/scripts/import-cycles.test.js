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

test('lab/ has no import cycle between its folders', () => {
  const r = report(path.join(ROOT, 'lab'));
  expect(r.text).toBe('');
  expect(r.cycles).toEqual([]);
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

test('requires inside one folder, and of packages, are no edges', () => {
  const dir = tree({ 'a/x.js': "require('./y'); require('express');", 'a/y.js': "require('./x');" });
  try {
    expect(report(dir).cycles).toEqual([]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
