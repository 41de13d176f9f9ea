'use strict';

const fs = require('node:fs');

// Fills a config template's {{name}} fields; a field without a value is an error (a template
// and its kind out of step), never an empty string in a running balancer's config.
function fillTemplate(file, values) {
  const text = fs.readFileSync(file, 'utf8');
  return text.replace(/\{\{(\w+)\}\}/g, (m, key) => {
    if (!(key in values) || values[key] === undefined) throw new Error(`${file}: no value for {{${key}}}`);
    return String(values[key]);
  });
}

module.exports = { fillTemplate };
