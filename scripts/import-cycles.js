#!/usr/bin/env node
'use strict';

// No folder of lab/ in an import cycle (issue 55), and no file either (issue 72): every
// relative require of lab/'s files (lazy ones inside functions too), counted between its
// folders (a file directly in lab/ is the folder "(root)") and between its files; any set of
// folders or of files that reach one another (a strongly connected component of more than
// one, by Tarjan's algorithm) fails, naming for each of its edges the first requires that
// make it.
// Run by npm test as a lint step (scripts/test.sh); exits 1 on a cycle.
//   node scripts/import-cycles.js [DIR]   (default: lab/ of this checkout)
const fs = require('node:fs');
const path = require('node:path');

function jsFiles(dir) {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? jsFiles(path.join(dir, e.name)) : /\.c?js$/.test(e.name) ? [path.join(dir, e.name)] : [],
    );
}

// { edges: Map(node -> Set(node)), why: Map('a->b' -> ['file -> file', ...]) }, a node being a
// folder of root (nodeOf = folderOf) or a file (nodeOf = fileOf).
const folderOf = (root) => (f) => {
  const parts = path.relative(root, f).split(path.sep);
  return parts.length > 1 ? parts[0] : '(root)';
};
const fileOf = (root) => (f) => path.relative(root, f);
function folderGraph(root, nodeOf = folderOf(root)) {
  const edges = new Map();
  const why = new Map();
  for (const file of jsFiles(root)) {
    const src = fs.readFileSync(file, 'utf8');
    for (const [, spec] of src.matchAll(/require\(\s*['"](\.{1,2}\/[^'"]*)['"]\s*\)/g)) {
      const base = path.resolve(path.dirname(file), spec);
      const target = [base, `${base}.js`, path.join(base, 'index.js')].find(
        (c) => fs.existsSync(c) && fs.statSync(c).isFile(),
      );
      if (!target || !target.startsWith(root + path.sep)) continue;
      const a = nodeOf(file);
      const b = nodeOf(target);
      if (a === b) continue;
      if (!edges.has(a)) edges.set(a, new Set());
      edges.get(a).add(b);
      const key = `${a}->${b}`;
      if (!why.has(key)) why.set(key, []);
      why.get(key).push(`${path.relative(root, file)} -> ${path.relative(root, target)}`);
    }
  }
  return { edges, why };
}

// The strongly connected components of more than one folder.
function cycles(edges) {
  let index = 0;
  const stack = [];
  const onStack = new Set();
  const idx = new Map();
  const low = new Map();
  const out = [];
  const nodes = new Set([...edges.keys(), ...[...edges.values()].flatMap((s) => [...s])]);
  const visit = (v) => {
    idx.set(v, index);
    low.set(v, index);
    index += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of edges.get(v) || []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const scc = [];
      let w;
      do {
        w = stack.pop();
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of [...nodes].sort()) if (!idx.has(v)) visit(v);
  return out;
}

// { cycles: between folders, fileCycles: between files, text: each named with its edges }.
function report(root) {
  const lines = [];
  const found = {};
  for (const [key, what, nodeOf] of [
    ['cycles', 'folders', folderOf(root)],
    ['fileCycles', 'files', fileOf(root)],
  ]) {
    const { edges, why } = folderGraph(root, nodeOf);
    found[key] = cycles(edges);
    for (const scc of found[key]) {
      lines.push(`import cycle between the ${what} ${scc.join(', ')} of ${root}:`);
      for (const a of scc) {
        for (const b of [...(edges.get(a) || [])].filter((x) => scc.includes(x)).sort()) {
          lines.push(`  ${a} -> ${b}: ${why.get(`${a}->${b}`).slice(0, 3).join(' | ')}`);
        }
      }
    }
  }
  return { ...found, text: lines.join('\n') };
}

if (require.main === module) {
  const root = path.resolve(process.argv[2] || path.join(__dirname, '..', 'lab'));
  const r = report(root);
  if (r.cycles.length || r.fileCycles.length) {
    process.stderr.write(`${r.text}\n`);
    process.exit(1);
  }
  process.stdout.write(
    `no import cycle between the folders or the files of ${path.relative(process.cwd(), root) || '.'}\n`,
  );
}

module.exports = { folderGraph, cycles, report };
