'use strict';

const fs = require('node:fs');
const { labError } = require('../../../common/errors');

// Fills a config template's {{name}} fields; a field without a value is an error (a template
// and its kind out of step), never an empty string in a running balancer's config.
function fillTemplate(file, values) {
  const text = fs.readFileSync(file, 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (m, key) => {
    if (!(key in values) || values[key] === undefined) throw new Error(`${file}: no value for {{${key}}}`);
    return String(values[key]);
  });
}

// A path inside a config's double quotes, where nginx, HAProxy and Caddy read `\\` and `\"`:
// a state folder or a checkout whose path has a space broke every deployment unquoted
// (nginx: `invalid number of arguments in "pid" directive`). Inside quotes a `$` is still a
// variable to nginx and HAProxy, and `{ }` a placeholder to Caddy: such a path is refused
// with its reason, never rendered into a config that means something else.
function quotedPath(p) {
  // (nginx's own word for its standard error, in containers, is not a path.)
  if (p === 'stderr') return p;
  const bad = String(p).match(/[${}\n\r]/);
  if (bad)
    throw labError('LAB_ERR_PATH', p, `a ${JSON.stringify(bad[0])} in it would be read as a balancer config's syntax`);
  return `"${String(p).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

module.exports = { fillTemplate, quotedPath };
