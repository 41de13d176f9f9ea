'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { runCommand, tmpStateDir, ROOT } = require('../../helper');

// The lab's Node processes share Node's compile cache (lab/cli/compile-cache.js): enabled in
// the lab's own process, and passed on in the environment to what it starts, so that a
// search's many short processes (a lab process and a generator a level) skip compiling the
// modules the one before compiled.
const NODE = process.execPath;
const SHOW = `const d = require(${JSON.stringify(path.join(ROOT, 'lab', 'cli', 'compile-cache'))}).enableCompileCache();
require(${JSON.stringify(path.join(ROOT, 'lab', 'capacity', 'usl'))});
console.log(JSON.stringify({ d, env: process.env.NODE_COMPILE_CACHE || null }));`;

test('enabled under the temporary folder and passed on to children; NODE_DISABLE_COMPILE_CACHE=1 turns it off', async () => {
  const tmp = tmpStateDir();
  const on = await runCommand(NODE, ['-e', SHOW], { env: { TMPDIR: tmp, NODE_COMPILE_CACHE: '' } });
  expect(on.stderr).toBe('');
  const seen = JSON.parse(on.stdout);
  expect(seen.d.startsWith(tmp)).toBe(true);
  expect(seen.env).toBe(seen.d);
  // What it compiled was written there when the process ended.
  const files = fs.readdirSync(seen.d, { recursive: true });
  expect(files.length).toBeGreaterThan(0);
  const off = await runCommand(NODE, ['-e', SHOW], {
    env: { TMPDIR: tmp, NODE_COMPILE_CACHE: '', NODE_DISABLE_COMPILE_CACHE: '1' },
  });
  expect(JSON.parse(off.stdout)).toEqual({ d: null, env: null });
});
