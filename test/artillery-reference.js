'use strict';

const path = require('node:path');
const { spawnSync } = require('node:child_process');

// Artillery's own engine_util (template, captureOrMatch), the lock file's, as the reference of
// the tests that compare the lab's engines with it. Since 2.0.34 it is an ES module inside the
// artillery package, which jest's module system cannot load; Node itself can (require of an ES
// module), so the cases run in a child Node (./artillery-reference-child.js), all at once:
// `cases` go in as JSON, the answers come back in their order. `undefined` travels as
// { $undefined: true }; a function of a template's context as its source text.
function artilleryReference(kind, cases) {
  const r = spawnSync(process.execPath, [path.join(__dirname, 'artillery-reference-child.js')], {
    input: JSON.stringify({ kind, cases }, (k, v) => (v === undefined ? { $undefined: true } : v)),
    encoding: 'utf8',
    timeout: 30000,
    maxBuffer: 16 * 2 ** 20,
  });
  if (r.status !== 0) throw new Error(`Artillery's engine_util did not answer (exit ${r.status}): ${r.stderr}`);
  return JSON.parse(r.stdout, (k, v) => (v && v.$undefined === true ? undefined : v));
}

module.exports = { artilleryReference };
