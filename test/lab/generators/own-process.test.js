'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { died } = require('../../../lab/generators/own-process');

// Why the generator died, named: a generator killed for memory reads as such, not as
// "failed (SIGKILL)".
const log = (text) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'gen-')), 'generator.log');
  fs.writeFileSync(file, text);
  return file;
};
const oomNow = () => Number(/^oom_kill (\d+)$/m.exec(fs.readFileSync('/proc/vmstat', 'utf8'))[1]);

test("a SIGKILL the lab did not send, while the kernel's OOM killer acted, is named", () => {
  const why = died(null, 'SIGKILL', { killed: false, oomBefore: oomNow() - 1, log: log('') });
  expect(why).toMatch(/out-of-memory killer/);
  // The lab's own SIGKILL (a generator that did not stop in time) is not blamed on memory.
  expect(died(null, 'SIGKILL', { killed: true, oomBefore: oomNow() - 1, log: log('') })).toBe('SIGKILL');
  expect(died(null, 'SIGKILL', { killed: false, oomBefore: oomNow(), log: log('') })).toBe('SIGKILL');
});

test("V8's heap running out is named from the generator's log", () => {
  const text =
    '<--- Last few GCs --->\nFATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n';
  expect(died(134, null, { killed: false, oomBefore: null, log: log(text) })).toMatch(/^134: it ran out of memory/);
  expect(died(3, null, { killed: false, oomBefore: null, log: log('error') })).toBe(3);
});

test("an uncaught error is named by its own line (a processor's require once read only 'failed (1)')", () => {
  const text = [
    'node:internal/modules/cjs/loader:1210',
    '  throw err;',
    '  ^',
    '',
    "Error: Cannot find module '/srv/app/processor.js'",
    'Require stack:',
    '- /lab/generators/fast-worker.js',
    '    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15) {',
    "  code: 'MODULE_NOT_FOUND',",
    '}',
  ].join('\n');
  expect(died(1, null, { killed: false, oomBefore: null, log: log(text) })).toBe(
    "1: Error: Cannot find module '/srv/app/processor.js' (generator.log has the rest)",
  );
  const typed = 'TypeError [ERR_INVALID_ARG_TYPE]: The "path" argument must be of type string\n    at x (y:1:1)\n';
  expect(died(1, null, { killed: false, oomBefore: null, log: log(typed) })).toMatch(
    /^1: TypeError \[ERR_INVALID_ARG_TYPE\]: The "path"/,
  );
});
