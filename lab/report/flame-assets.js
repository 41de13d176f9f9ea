'use strict';

// What a page with flame graphs carries, once, inline: d3-flame-graph (Apache-2.0, by Martin
// Spier) and the d3 modules it draws with (ISC, by Mike Bostock), each named in the page
// beside its code, its stylesheet, and the lab's script that draws each figure.flame from its
// data and wires its search box (./assets/flame.js). Nothing is fetched: a report opens from
// file:// offline. (About 150 KiB, on pages of a profiled run only.)
const fs = require('node:fs');
const path = require('node:path');
const { trusted } = require('./html');

// The d3 modules in the order each needs the ones before it, then the flame graph.
const D3 = [
  'd3-array',
  'd3-color',
  'd3-interpolate',
  'd3-format',
  'd3-time',
  'd3-time-format',
  'd3-scale',
  'd3-selection',
  'd3-dispatch',
  'd3-timer',
  'd3-ease',
  'd3-transition',
  'd3-hierarchy',
];

let cached = null;

// A package's folder, found as Node finds it (the d3 modules' exports hide package.json).
function packageDir(name) {
  for (const p of require.resolve.paths(name) || []) {
    if (fs.existsSync(path.join(p, name, 'package.json'))) return path.join(p, name);
  }
  throw new Error(`${name} is not installed (npm ci)`);
}
const versionOf = (dir) => JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version;

function read() {
  const parts = [];
  for (const name of D3) {
    const dir = packageDir(name);
    const file = path.join(dir, 'dist', `${name}.min.js`);
    parts.push({
      name: `${name} ${versionOf(dir)} (ISC licence, https://d3js.org)`,
      js: fs.readFileSync(file, 'utf8'),
    });
  }
  const fg = packageDir('d3-flame-graph');
  const fgPkg = { version: versionOf(fg) };
  parts.push({
    name: `d3-flame-graph ${fgPkg.version} (Apache-2.0 licence, Martin Spier, https://github.com/spiermar/d3-flame-graph)`,
    js: fs.readFileSync(path.join(fg, 'dist', 'd3-flamegraph.umd.min.js'), 'utf8'),
  });
  parts.push({
    name: "the lab's flame graphs",
    js: fs.readFileSync(path.join(__dirname, 'assets', 'flame.js'), 'utf8'),
  });
  const css = fs.readFileSync(path.join(fg, 'dist', 'd3-flamegraph.css'), 'utf8');
  // (A script's text must not hold "</script": none does, and this says so if one did.)
  for (const p of parts)
    if (/<\/script/i.test(p.js)) throw new Error(`${p.name} holds "</script": it cannot be inlined`);
  return trusted(
    `<style>${css}\n${STYLE}</style>\n${parts.map((p) => `<script>/* ${p.name} */\n${p.js}</script>`).join('\n')}`,
  );
}

const STYLE = `figure.flame{margin:14px 0}figure.flame figcaption{font-weight:bold;font-size:13px;margin-bottom:4px}
figure.flame input{margin:4px 0;width:260px}figure.flame .flame-details{font-size:11px;color:#555;min-height:14px}
@media print{figure.flame{break-inside:avoid}}`;

function flameAssets() {
  if (!cached) cached = read();
  return cached;
}

module.exports = { flameAssets };
