'use strict';

// The child of ./artillery-reference.js: runs the cases on stdin through Artillery's own
// engine_util and prints the answers as JSON.
const fs = require('node:fs');
const path = require('node:path');

const dir = path.dirname(require.resolve('artillery/package.json'));
const util = require(path.join(dir, 'dist', 'lib', 'commons', 'engine_util.js'));

const revive = (k, v) => (v && v.$undefined === true ? undefined : v);
const { kind, cases } = JSON.parse(fs.readFileSync(0, 'utf8'), revive);
const out = (answers) =>
  process.stdout.write(JSON.stringify(answers, (k, v) => (v === undefined ? { $undefined: true } : v)));

if (kind === 'template') {
  // { value, vars, funcs: { name: 'source of a function' } }
  out(
    cases.map(({ value, vars, funcs = {} }) => {
      const fns = Object.fromEntries(Object.entries(funcs).map(([n, src]) => [n, (0, eval)(`(${src})`)]));
      return util.template(value, { vars, funcs: fns });
    }),
  );
} else if (kind === 'captureOrMatch') {
  // { specs, res: { headers, text }, strictDefault }: whether the virtual user fails ("Failed
  // capture or match") and the variables it sets when it does not, as Artillery's engine does.
  Promise.all(
    cases.map(
      ({ specs, res, strictDefault }) =>
        new Promise((resolve) => {
          const context = { vars: {}, funcs: {}, _defaultStrictCapture: strictDefault };
          util.captureOrMatch(specs, { headers: res.headers, body: res.text }, context, (err, result) => {
            const failed =
              Object.values(result.matches).some((v) => !v.success && v.strict !== false) ||
              Object.values(result.captures).some((v) => v.failed);
            const vars = {};
            if (!failed) for (const [k, v] of Object.entries(result.captures)) vars[k] = v.value;
            resolve({ failed, vars });
          });
        }),
    ),
  ).then(out);
} else {
  process.stderr.write(`unknown kind ${kind}\n`);
  process.exit(2);
}
