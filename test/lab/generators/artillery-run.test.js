'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { pluginPath } = require('../../../lab/generators/artillery-run');

// Where the lab's Artillery looks for a script's plugins: its own plugin folder first, the
// user's ARTILLERY_PLUGIN_PATH, then every node_modules from the script's folder up.
test("plugins: the lab's, the user's path, then the node_modules beside the script and above it", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'plugin-path-'));
  const deep = path.join(root, 'project', 'tests');
  fs.mkdirSync(path.join(deep, 'node_modules'), { recursive: true });
  fs.mkdirSync(path.join(root, 'node_modules'), { recursive: true });
  const dirs = pluginPath(deep, '/opt/plugins:/srv/more').split(':');
  expect(dirs[0]).toMatch(/artillery\/plugins$/);
  expect(dirs.slice(1, 3)).toEqual(['/opt/plugins', '/srv/more']);
  // (project/ has no node_modules: not named.)
  expect(dirs.slice(3).filter((d) => d.startsWith(root))).toEqual([
    path.join(deep, 'node_modules'),
    path.join(root, 'node_modules'),
  ]);
  // No script (the lab's own scenarios): the lab's folder and the user's path only.
  expect(pluginPath(null, '').split(':')).toEqual([dirs[0]]);
});
