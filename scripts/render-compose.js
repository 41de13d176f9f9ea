#!/usr/bin/env node
'use strict';

// Regenerates compose/ from the deployment table: `npm run compose:render`.
// A test fails when the committed files differ from what this writes.
const path = require('node:path');
const { writeComposeFiles } = require('../lab/topology/compose-write');

const dir = path.join(__dirname, '..', 'compose');
for (const file of writeComposeFiles(dir)) process.stdout.write(`${path.relative(process.cwd(), file)}\n`);
