'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pruneCache } = require('../../../lab/cluster/image');

// After a new node image is built, the cache keeps it and its runtime, and whatever a running
// node still has open; older images, runtimes and app folders go; anything not of the lab's
// naming stays.
test('pruneCache removes older entries, keeps the new ones, those in use and strangers', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-cache-'));
  const mk = (name, file = 'base.img') => {
    fs.mkdirSync(path.join(dir, name), { recursive: true });
    fs.writeFileSync(path.join(dir, name, file), 'x');
  };
  mk('aaaaaaaaaaaa'); // the new image
  mk('bbbbbbbbbbbb'); // older
  mk('cccccccccccc'); // older, but a node runs on it
  mk('app-dddddddddddd', 'Dockerfile');
  mk('my-notes', 'todo.txt'); // not the lab's naming
  fs.writeFileSync(path.join(dir, 'runtime-111111111111.tar'), 'new');
  fs.writeFileSync(path.join(dir, 'runtime-222222222222.tar'), 'old');
  fs.writeFileSync(path.join(dir, '.lab-owned'), '{}');
  const inUse = fs.openSync(path.join(dir, 'cccccccccccc', 'base.img'), 'r');
  try {
    const removed = pruneCache(dir, ['aaaaaaaaaaaa', 'runtime-111111111111.tar']);
    expect(removed.sort()).toEqual(['app-dddddddddddd', 'bbbbbbbbbbbb', 'runtime-222222222222.tar']);
    expect(fs.readdirSync(dir).sort()).toEqual([
      '.lab-owned',
      'aaaaaaaaaaaa',
      'cccccccccccc',
      'my-notes',
      'runtime-111111111111.tar',
    ]);
  } finally {
    fs.closeSync(inUse);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
