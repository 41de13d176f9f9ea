'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { lab, ownPlace, artilleryRun, flagsOf } = require('../../helper');

// A plugin installed beside the user's script (its folder's node_modules) is found by
// --generator artillery as Artillery finds it (issue 74): plain `artillery run` is given the
// folder by ARTILLERY_PLUGIN_PATH (Artillery looks beside itself, and there), the lab by
// nothing at all (it names the script's node_modules, and those above it, to its Artillery).
// The plugin, the test's own, adds a header to every request: the same requests reach a
// server of the test's own from both, and the lab's engines refuse the plugin by name.
const PLUGIN = `'use strict';
// Adds a default header to the script it is loaded with (Artillery's plugin API, version 1:
// given the script's config).
function Plugin(config) {
  config.defaults = config.defaults || {};
  config.defaults.headers = { ...(config.defaults.headers || {}), 'x-plugin': 'beside-the-script' };
}
module.exports = Plugin;
`;

function recorder() {
  const seen = [];
  const server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url} x-plugin=${req.headers['x-plugin'] ?? '-'}`);
    res.end('{}');
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}`, seen, close: () => server.close() }),
    ),
  );
}

function scriptBesidePlugin(target) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'artillery-plugin-'));
  const mod = path.join(dir, 'node_modules', 'artillery-plugin-labtest');
  fs.mkdirSync(mod, { recursive: true });
  fs.writeFileSync(path.join(mod, 'index.js'), PLUGIN);
  fs.writeFileSync(path.join(mod, 'package.json'), '{ "name": "artillery-plugin-labtest", "version": "1.0.0" }\n');
  const file = path.join(dir, 'with-plugin.yml');
  fs.writeFileSync(
    file,
    `config:
  target: ${target}
  phases: [{ duration: 1, arrivalCount: 1 }]
  plugins:
    labtest: {}
scenarios:
  - flow:
      - get: { url: /a }
      - post: { url: /b, json: { n: 1 } }
`,
  );
  return { dir, file };
}

test('a plugin beside the script: found by --generator artillery as plain artillery run finds it; refused by fast', async () => {
  const ref = await recorder();
  const mine = await recorder();
  try {
    const a = scriptBesidePlugin(ref.url);
    const plain = await artilleryRun(a.file, [], { ARTILLERY_PLUGIN_PATH: path.join(a.dir, 'node_modules') });
    expect(plain.code).toBe(0);
    expect(ref.seen).toEqual(['GET /a x-plugin=beside-the-script', 'POST /b x-plugin=beside-the-script']);

    const b = scriptBesidePlugin('http://127.0.0.1:1');
    const r = await lab(
      [
        'scenario',
        ...flagsOf({ script: b.file, target: mine.url, generator: 'artillery', graphite: false, json: true }),
        ...(await ownPlace()),
      ],
      { timeoutMs: 120000, env: { ARTILLERY_PLUGIN_PATH: '' } },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect(r.code).toBe(0);
    expect(mine.seen).toEqual(ref.seen);

    const fast = await lab(['scenario', '--script', b.file, '--target', mine.url, '--generator', 'fast', '--plan']);
    expect(fast.code).toBe(2);
    expect(fast.stderr).toMatch(/the labtest plugin .*--generator artillery \[LAB_ERR_SCRIPT_FOREIGN\]/);
  } finally {
    ref.close();
    mine.close();
  }
}, 300000);
