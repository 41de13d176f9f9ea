'use strict';

const fs = require('node:fs');
const { rendered, PAGE } = require('../../scripts/docs-features');

// The docs' table of Artillery's features by generator is the declarations' own: rendered
// from them, never edited by hand (run node scripts/docs-features.js after changing them).
test("the docs' feature table is what the generators declare", () => {
  const text = fs.readFileSync(PAGE, 'utf8');
  expect(rendered(text)).toBe(text);
});
