#!/usr/bin/env node
'use strict';

// Used inside an image build: trims package.json to the dependencies named on the command
// line, so `npm install` then installs only those, at the versions package-lock.json pins
// (npm keeps locked versions for what remains and prunes the rest). The service needs three
// packages; the lab's own (Artillery, pm2...) would add hundreds of MiB to every replica.
const fs = require('node:fs');

const keep = process.argv.slice(2);
const pkg = JSON.parse(fs.readFileSync('package.json', 'utf8'));
const missing = keep.filter((name) => !(name in (pkg.dependencies || {})));
if (keep.length === 0 || missing.length > 0) {
  process.stderr.write(`image-deps: not dependencies of package.json: ${missing.join(', ') || '(none named)'}\n`);
  process.exit(2);
}
pkg.dependencies = Object.fromEntries(keep.map((name) => [name, pkg.dependencies[name]]));
delete pkg.devDependencies;
delete pkg.scripts;
fs.writeFileSync('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
