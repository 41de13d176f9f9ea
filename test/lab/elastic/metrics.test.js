'use strict';

const { metricOf } = require('../../../lab/elastic/metrics');

// Samples a second apart from t=1000 ms: each { at, nodes: { name: { cpuPct } } }.
const samples = [
  { at: 1000, nodes: { 'replica-1': { cpuPct: 40 }, 'replica-2': { cpuPct: 10 } } },
  { at: 2000, nodes: { 'replica-1': { cpuPct: 60 }, 'replica-2': { cpuPct: 30 } } },
  { at: 3000, nodes: { 'replica-1': { cpuPct: 200 } } },
];

describe("the autoscaler's metric per replica over its window", () => {
  test('cpu: the mean over the window, per core the replica may use', () => {
    const v = metricOf('cpu', {
      samples,
      names: ['replica-1', 'replica-2', 'replica-3'],
      fromMs: 1000,
      toMs: 3000,
      cores: (n) => (n === 'replica-2' ? 0.5 : 1),
    });
    // replica-1: (40 + 60) / 2 = 50; replica-2: (10 + 30) / 2 / 0.5 = 40; replica-3: no figure.
    expect(v).toEqual({ 'replica-1': 50, 'replica-2': 40, 'replica-3': null });
  });

  test("loop: the serving processes' busy time over their whole time (a primary left out)", () => {
    // (In the order they arrived, as the collector keeps them.)
    const datagrams = [
      { node: 'replica-2', role: 'process', at: 500, elu: [1000, 0], r: 50 },
      { node: 'replica-1', role: 'primary', at: 1500, elu: [900, 100], r: 0 },
      { node: 'replica-1', role: 'worker', at: 1500, elu: [300, 700], r: 10 },
      { node: 'replica-1', role: 'worker', at: 1600, elu: [500, 500], r: 12 },
    ];
    const v = metricOf('loop', { datagrams, names: ['replica-1', 'replica-2'], fromMs: 1000, toMs: 2000 });
    expect(v).toEqual({ 'replica-1': 40, 'replica-2': null });
    const r = metricOf('rps', { datagrams, names: ['replica-1', 'replica-2'], fromMs: 1000, toMs: 3000 });
    // 22 requests over 2 s (the primary begins none); replica-2's datagram is before the window.
    expect(r).toEqual({ 'replica-1': 11, 'replica-2': null });
  });

  test('an unknown metric is a bug, said', () => {
    expect(() => metricOf('memory', { names: [], fromMs: 0, toMs: 1 })).toThrow(/unknown metric/);
  });
});
