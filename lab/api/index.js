'use strict';

// `require('node-deploy-lab')`: the lab's commands as async functions of one options object
// (docs/api.md). Each takes the command's flags in camelCase, its words by name, `signal` (an
// AbortSignal) and `env` (more environment for the run), and returns a promise of what
// `--json` prints, with events on it ('log', 'progress', 'exit'): ./run.js.

const { run } = require('./run');
const { COMMANDS } = require('./options');

const lab = Object.fromEntries(Object.keys(COMMANDS).map((name) => [name, (options) => run(name, options)]));

// (`import lab from` compiled to CommonJS reads .default: the same object, not enumerated.)
Object.defineProperty(lab, 'default', { value: lab });

module.exports = lab;
