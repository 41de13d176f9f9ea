'use strict';

// V8's CPU profiles (Chrome DevTools' .cpuprofile: a call tree of nodes, each with its frame
// and the samples taken while it was on top) read for a person: which functions a process
// spent its busy time in, by self time and by total time, each with its file, line and the
// package it belongs to; the processes of one node merged into one tree; the tree as a flame
// graph's data. Pure functions of the profiles.

// What a frame is, from its URL and name: your code, a package of node_modules, Node's own
// JavaScript, V8's builtins and native code, the garbage collector, the lab's probe, or the
// pseudo-frames V8 adds (idle: the loop waiting; program: the engine's own work).
function packageOf(frame) {
  const name = frame.functionName;
  const url = frame.url || '';
  if (name === '(idle)') return 'idle';
  if (name === '(garbage collector)') return 'GC';
  if (name === '(program)') return 'program';
  if (name === '(root)') return 'root';
  if (url.startsWith('node:') || /^internal[/\\]/.test(url)) return "Node's internals";
  if (!url) return 'V8 (builtins, native)';
  if (/[\\/]probe[\\/]preload\.js$|\.lab-probe\.cjs$/.test(url)) return "the lab's probe";
  const m = /.*[\\/]node_modules[\\/]((?:@[^\\/]+[\\/])?[^\\/]+)/.exec(url);
  if (m) return m[1].replace(/\\/g, '/');
  return 'your code';
}

// A frame's key (one function), and its name and place as a person reads them (lines are
// 0-based in the profile).
const keyOf = (f) => `${f.functionName}\u0000${f.url}\u0000${f.lineNumber}`;
function describe(f) {
  const file = (f.url || '').replace(/^file:\/\//, '');
  return {
    name: f.functionName || '(anonymous)',
    file: file || null,
    line: f.lineNumber >= 0 && file ? f.lineNumber + 1 : null,
    package: packageOf(f),
  };
}

// Each node's own samples: its hitCount, or counted from `samples`.
function selfCounts(profile) {
  const counts = new Map();
  if (Array.isArray(profile.samples) && profile.samples.length) {
    for (const id of profile.samples) counts.set(id, (counts.get(id) || 0) + 1);
  } else for (const n of profile.nodes) counts.set(n.id, n.hitCount || 0);
  return counts;
}

// The profile as a tree of { frame, self, children: Map(key -> node) }, so that trees of
// several processes merge by call path.
function treeOf(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = selfCounts(profile);
  const childOf = new Set(profile.nodes.flatMap((n) => n.children || []));
  const root = profile.nodes.find((n) => !childOf.has(n.id)) ?? profile.nodes[0];
  const build = (n) => {
    const t = { frame: n.callFrame, self: self.get(n.id) || 0, children: new Map() };
    for (const c of n.children || []) {
      const child = byId.get(c);
      if (!child) continue;
      addChild(t, build(child));
    }
    return t;
  };
  return build(root);
}

function addChild(parent, t) {
  const k = keyOf(t.frame);
  const into = parent.children.get(k);
  if (!into) parent.children.set(k, t);
  else mergeInto(into, t);
}

function mergeInto(a, b) {
  a.self += b.self;
  for (const c of b.children.values()) addChild(a, c);
}

// Several processes' profiles as one tree (a node's workers: one node, one profile).
function mergeTrees(profiles) {
  const trees = profiles.map(treeOf);
  const root = {
    frame: { functionName: '(root)', url: '', lineNumber: -1, columnNumber: -1 },
    self: 0,
    children: new Map(),
  };
  for (const t of trees) mergeInto(root, t);
  return root;
}

const walk = (t, fn, path = []) => {
  fn(t, path);
  for (const c of t.children.values()) walk(c, fn, [...path, t]);
};

// The functions of a tree, by self and by total samples, as shares of its busy samples (every
// sample but idle ones): [{ name, file, line, package, selfShare, totalShare }], each list
// sorted, `limit` long.
function topFunctions(tree, { limit = 10 } = {}) {
  const fns = new Map();
  let all = 0;
  let idle = 0;
  walk(tree, (t, path) => {
    all += t.self;
    if (t.frame.functionName === '(idle)') idle += t.self;
    const k = keyOf(t.frame);
    if (!fns.has(k)) fns.set(k, { ...describe(t.frame), self: 0, total: 0 });
    fns.get(k).self += t.self;
    // Total: every sample under this node, counted once per function on the stack.
    if (t.self) {
      const seen = new Set();
      for (const n of [...path, t]) {
        const key = keyOf(n.frame);
        if (seen.has(key)) continue;
        seen.add(key);
        if (!fns.has(key)) fns.set(key, { ...describe(n.frame), self: 0, total: 0 });
        fns.get(key).total += t.self;
      }
    }
  });
  const busy = all - idle;
  const share = (v) => (busy > 0 ? Math.round((v / busy) * 1000) / 1000 : 0);
  const rows = [...fns.values()].filter((f) => !['idle', 'root'].includes(f.package));
  const out = (f) => ({
    name: f.name,
    file: f.file,
    line: f.line,
    package: f.package,
    selfShare: share(f.self),
    totalShare: share(f.total),
  });
  return {
    samples: all,
    busySamples: busy,
    busyShare: all > 0 ? Math.round((busy / all) * 1000) / 1000 : null,
    top: rows
      .filter((f) => f.self > 0)
      .sort((a, b) => b.self - a.self)
      .slice(0, limit)
      .map(out),
    topTotal: rows
      .filter((f) => f.total > 0 && f.package !== 'program')
      .sort((a, b) => b.total - a.total)
      .slice(0, limit)
      .map(out),
    // Busy samples by package: where the time went, in a few lines.
    packages: packagesOf(rows, share),
  };
}

function packagesOf(rows, share) {
  const by = {};
  for (const f of rows) by[f.package] = (by[f.package] || 0) + f.self;
  return Object.entries(by)
    .filter(([, v]) => v > 0)
    .sort((a, b) => b[1] - a[1])
    .map(([name, v]) => ({ package: name, selfShare: share(v) }));
}

// The tree as a flame graph's data ({ name, value, children }: value the samples under it),
// without the idle samples, and without branches under `minShare` of the busy samples (a page
// of a 30 s profile stays small).
function flameData(tree, { minShare = 0.002 } = {}) {
  const totals = new Map();
  const total = (t) => {
    let v = t.frame.functionName === '(idle)' ? 0 : t.self;
    for (const c of t.children.values()) v += total(c);
    totals.set(t, v);
    return v;
  };
  const busy = total(tree);
  const floor = busy * minShare;
  const out = (t) => {
    const d = describe(t.frame);
    const where = d.file ? ` ${d.file.replace(/^.*[\\/]/, '')}${d.line ? `:${d.line}` : ''}` : '';
    return {
      name: `${d.name}${where}`,
      value: totals.get(t),
      package: d.package,
      children: [...t.children.values()].filter((c) => totals.get(c) >= floor && totals.get(c) > 0).map(out),
    };
  };
  return { ...out(tree), name: 'all' };
}

// The tree as a .cpuprofile again (a merged node's), that DevTools and speedscope open: its
// nodes with their own samples as hitCount, and a sample list of them (one interval each: a
// merge keeps how long, not when).
function toCpuprofile(tree, { intervalUs = 1000, startTime = 0 } = {}) {
  const nodes = [];
  const samples = [];
  let next = 1;
  const add = (t) => {
    const id = next++;
    const node = { id, callFrame: { scriptId: '0', columnNumber: -1, ...t.frame }, hitCount: t.self, children: [] };
    nodes.push(node);
    for (let i = 0; i < t.self; i++) samples.push(id);
    for (const c of t.children.values()) node.children.push(add(c));
    return id;
  };
  add(tree);
  return {
    nodes,
    startTime,
    endTime: startTime + samples.length * intervalUs,
    samples,
    timeDeltas: samples.map(() => intervalUs),
  };
}

module.exports = { packageOf, treeOf, mergeTrees, topFunctions, flameData, toCpuprofile, describe };
