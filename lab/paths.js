'use strict';

const path = require('node:path');

// Where the lab's own files are, for the modules that start programs or write results.
const ROOT = path.join(__dirname, '..');
const CLI = path.join(__dirname, 'cli', 'index.js');

// Where a run's state and results go when no flag says: the lab's own folder in its checkout,
// and, once installed as a package into a project (npm i -D node-deploy-lab: its files under
// node_modules), that project's folder, the one it is started from, never inside node_modules.
const INSTALLED = ROOT.split(path.sep).includes('node_modules');
const WORK = INSTALLED ? process.cwd() : ROOT;

// Debian's Chromium (never a browser a tool downloads): the report tests' and the Playwright
// engine's (lab/report/chromium.js, lab/generators/artillery-script.js).
const CHROMIUM = process.env.LAB_CHROMIUM || '/usr/bin/chromium';

// The PATH of a shell line the lab runs for your service (its start, its set-up): your
// project's node_modules/.bin first, as npm would, then the folder of the Node the lab runs
// on, so that a bare \`node\` is the lab's pinned Node (package.json), not the machine's.
// (`node`: the Node --node gave the service, whose folder comes first of all: a `node` in
// your project's node_modules/.bin would otherwise run it on another.)
function shellPath(appDir, node = null) {
  const bin = path.join(appDir, 'node_modules', '.bin');
  return (node ? [path.dirname(node), bin] : [bin, path.dirname(process.execPath)]).concat(process.env.PATH).join(':');
}

module.exports = { ROOT, WORK, INSTALLED, CLI, CHROMIUM, shellPath };
