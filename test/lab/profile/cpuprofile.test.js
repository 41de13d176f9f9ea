'use strict';

const {
  packageOf,
  treeOf,
  mergeTrees,
  topFunctions,
  flameData,
  toCpuprofile,
} = require('../../../lab/profile/cpuprofile');

// A .cpuprofile as V8 writes it: nodes with their frames and children, samples by node id.
const frame = (functionName, url = '', lineNumber = -1) => ({
  functionName,
  url,
  lineNumber,
  columnNumber: 0,
  scriptId: '1',
});
function profile(hot = 60, json = 20, idle = 20) {
  const nodes = [
    { id: 1, callFrame: frame('(root)'), children: [2, 5, 6] },
    { id: 2, callFrame: frame('handle', 'file:///app/server.js', 9), children: [3, 4] },
    { id: 3, callFrame: frame('computeDiscount', 'file:///app/src/pricing.js', 41), children: [] },
    { id: 4, callFrame: frame('stringify', ''), children: [] },
    { id: 5, callFrame: frame('(idle)'), children: [] },
    { id: 6, callFrame: frame('(garbage collector)'), children: [] },
  ];
  const samples = [...Array(hot).fill(3), ...Array(json).fill(4), ...Array(idle).fill(5), ...Array(5).fill(6), 2];
  return { nodes, startTime: 0, endTime: samples.length * 1000, samples, timeDeltas: samples.map(() => 1000) };
}

test('what a frame is: your code, a package, Node, V8, GC, idle, the lab probe', () => {
  expect(packageOf(frame('f', 'file:///app/x.js'))).toBe('your code');
  expect(packageOf(frame('f', '/app/node_modules/express/lib/router.js'))).toBe('express');
  expect(packageOf(frame('f', '/app/node_modules/@fastify/ajv/index.js'))).toBe('@fastify/ajv');
  expect(packageOf(frame('emit', 'node:events'))).toBe("Node's internals");
  expect(packageOf(frame('stringify', ''))).toBe('V8 (builtins, native)');
  expect(packageOf(frame('(garbage collector)'))).toBe('GC');
  expect(packageOf(frame('(idle)'))).toBe('idle');
  expect(packageOf(frame('tick', '/lab/probe/preload.js'))).toBe("the lab's probe");
});

test('top functions by self and total time, as shares of the busy samples (idle left out), lines 1-based', () => {
  const r = topFunctions(treeOf(profile()));
  expect(r).toMatchObject({ samples: 106, busySamples: 86, busyShare: 0.811 });
  expect(r.top[0]).toEqual({
    name: 'computeDiscount',
    file: '/app/src/pricing.js',
    line: 42,
    package: 'your code',
    selfShare: 0.698,
    totalShare: 0.698,
  });
  expect(r.top.map((f) => f.name)).toEqual(['computeDiscount', 'stringify', '(garbage collector)', 'handle']);
  expect(r.topTotal[0]).toMatchObject({ name: 'handle', selfShare: 0.012, totalShare: 0.942 });
  expect(r.top.some((f) => f.name === '(idle)')).toBe(false);
  expect(r.packages[0]).toEqual({ package: 'your code', selfShare: 0.709 });
});

test("a node's processes merged by call path: their samples add up, the shares hold", () => {
  const merged = mergeTrees([profile(60, 20), profile(20, 60)]);
  const r = topFunctions(merged);
  expect(r.samples).toBe(212);
  expect(r.top.slice(0, 2).map((f) => [f.name, f.selfShare])).toEqual([
    ['computeDiscount', 0.465],
    ['stringify', 0.465],
  ]);
  // Written back as a .cpuprofile, read again: the same figures.
  const again = topFunctions(treeOf(toCpuprofile(merged)));
  expect(again.top).toEqual(r.top);
});

test("the flame graph's data: values are the samples under a frame, idle left out, small branches pruned", () => {
  const d = flameData(treeOf(profile()));
  expect(d.name).toBe('all');
  expect(d.value).toBe(86);
  const handle = d.children.find((c) => c.name.startsWith('handle'));
  expect(handle).toMatchObject({ name: 'handle server.js:10', value: 81, package: 'your code' });
  expect(handle.children.map((c) => c.name)).toEqual(['computeDiscount pricing.js:42', 'stringify']);
  expect(d.children.some((c) => /idle/.test(c.name))).toBe(false);
  const pruned = flameData(treeOf(profile()), { minShare: 0.5 });
  expect(pruned.children.map((c) => c.name)).toEqual(['handle server.js:10']);
});
