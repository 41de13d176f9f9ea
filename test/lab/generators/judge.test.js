'use strict';

// The generator's verdict on itself (lab/generators/judge.js): whether it, the machine or a lost
// load node, not the system, set the limit of a run.

const { judgeGenerator } = require('../../../lab/generators/judge');

test('the generator is blamed when it launched under 99% of the asked rate', () => {
  const phase = (ratio, cpu = 95, durationS = 15) => ({
    name: 'spike',
    durationS,
    ratio,
    achievedRate: 650,
    targetRate: { mean: 1000 },
    generatorCpuPctMean: cpu,
    sendLagP99Ms: null,
    launched: 100,
  });
  expect(judgeGenerator([phase(0.65)], 'completed').saturated).toBe(true);
  expect(judgeGenerator([phase(0.98, 40)], 'completed').saturated).toBe(true);
  expect(judgeGenerator([phase(0.995, 40)], 'completed')).toEqual({
    saturated: false,
    verdict: 'the load generator kept up with every phase',
  });
  expect(judgeGenerator([phase(0.995, 97)], 'completed').verdict).toMatch(/used 97% of a core in phase "spike"/);
  // Too short to judge: no blame, and it says so.
  expect(judgeGenerator([phase(0.5, 40, 2)], 'completed').verdict).toMatch(/too short to judge/);
  expect(judgeGenerator([phase(null, 40)], 'completed', { closed: true }).saturated).toBe(false);
});

// Seen on a machine busy with other work: 8 arrivals a second, a p99 send lag of 23 ms,
// the generator at 4% of a core, and the verdict blamed the generator.
test('late sends on a busy machine blame the machine; the generator only when it uses the CPU', () => {
  const late = (generatorCpu, machineCpu, others) => ({
    name: 'constant 8/s',
    durationS: 30,
    ratio: 1,
    achievedRate: 8,
    targetRate: { mean: 8 },
    launched: 240,
    sendLagP99Ms: 23,
    generatorCpuPctMean: generatorCpu,
    machineCpuPctMean: machineCpu,
    othersCpuPctMean: others,
    load1Mean: 3.1,
  });
  const busy = judgeGenerator([late(4, 196, 180)], 'completed', { cores: 2 });
  expect(busy).toMatchObject({ saturated: true, cause: 'machine' });
  expect(busy.verdict).toMatch(
    /^in phase "constant 8\/s" the load generator sent late \(p99 send lag 23 ms\), and this machine was busy: its cores were 98% busy, other programs than the run's using 1\.8 of a core, load average 3\.1 on 2 cores, while the generator used 4% of a core/,
  );
  expect(busy.verdict).not.toMatch(/generator set the limit/);
  // Other programs at 60% of a core, the cores not all busy: still the machine's.
  expect(judgeGenerator([late(4, 90, 60)], 'completed', { cores: 2 }).cause).toBe('machine');
  // The generator using the CPU: its own limit.
  expect(judgeGenerator([late(95, 196, 10)], 'completed', { cores: 2 })).toMatchObject({ cause: 'generator' });
  // A quiet machine: the generator is still the one that sent late.
  expect(judgeGenerator([late(4, 30, 5)], 'completed', { cores: 2 }).verdict).toMatch(/generator set the limit/);
  // No machine figures (an older summary): as before.
  expect(judgeGenerator([{ ...late(4), machineCpuPctMean: undefined }], 'completed').cause).toBe('generator');
});

// Seen in a study at --scale 0.1: spikes' last 5 s base at 10/s read 49 of 50 (9.8/s), the
// spike before it 201 of 200, and the run launched every arrival asked; the verdict blamed
// the generator at 2.8% of a core.
test('an arrival counted across a phase boundary is not a generator limit; a real shortfall still is', () => {
  const ph = (name, rate, durationS, launched) => ({
    name,
    durationS,
    launched,
    achievedRate: launched / durationS,
    ratio: launched / (rate * durationS),
    targetRate: { mean: rate },
    generatorCpuPctMean: 3,
    sendLagP99Ms: 0.3,
  });
  const spikes = (lastBase) => [
    ph('base 10/s', 10, 5, 50),
    ph('spike 2: 100/s', 100, 2, 201),
    ph('base 10/s', 10, 5, lastBase),
  ];
  expect(judgeGenerator(spikes(49), 'completed')).toEqual({
    saturated: false,
    verdict: 'the load generator launched 300 arrivals; phases under 5 s are too short to judge its rate',
  });
  expect(judgeGenerator([ph('base', 10, 5, 49)], 'completed').saturated).toBe(false);
  const short = judgeGenerator(spikes(45), 'completed');
  expect(short.saturated).toBe(true);
  expect(short.verdict).toMatch(/launched 9\/s of the 10\/s asked/);
  expect(judgeGenerator([ph('base', 10, 5, 48)], 'completed').saturated).toBe(true);
});

test('a closed loop under the busy mark gives its figure, not "not busy"; over it, it may be the limit', () => {
  const closed = (cpu, workers = 1) =>
    judgeGenerator([{ name: 'closed loop', durationS: 60, generatorCpuPctMean: cpu }], 'completed', {
      closed: true,
      generator: { workers },
    });
  expect(closed(88)).toEqual({
    saturated: false,
    verdict:
      "closed loop: the rate is what the system answered; the generator's busiest phase averaged 88% CPU, under the 90% read as busy",
  });
  expect(closed(88, 2).verdict).toMatch(/averaged 88% CPU over its 2 threads/);
  expect(closed(null).verdict).toMatch(/the generator's CPU was not sampled$/);
  expect(closed(90)).toMatchObject({
    saturated: true,
    verdict: expect.stringMatching(/used 90% of a core: a closed loop this busy/),
  });
});

test('with load nodes, the verdict names the node that fell behind most (open: send lag; closed: CPU)', () => {
  const phase = {
    name: 'ramp',
    durationS: 20,
    ratio: 0.9,
    achievedRate: 900,
    targetRate: { mean: 1000 },
    generatorCpuPctMean: 60,
    sendLagP99Ms: 40,
    launched: 100,
  };
  const nodes = [
    { node: 'node1', sendLagMs: { p99: 2 }, cpuPctMean: 90 },
    { node: 'node2', sendLagMs: { p99: 55 }, cpuPctMean: 40 },
  ];
  const open = judgeGenerator([phase], 'completed', { generator: { nodes } });
  expect(open).toMatchObject({ saturated: true, node: 'node2' });
  expect(open.verdict).toMatch(/the node that fell behind most: node2 \(p99 send lag 55 ms, 40% of a core/);
  const closed = judgeGenerator([{ ...phase, generatorCpuPctMean: 95 }], 'completed', {
    closed: true,
    generator: { nodes },
  });
  expect(closed.node).toBe('node1');
  // Nothing to blame: no node named.
  const fine = judgeGenerator([{ ...phase, ratio: 1, sendLagP99Ms: 1, generatorCpuPctMean: 10 }], 'completed', {
    generator: { nodes },
  });
  expect(fine.node).toBeUndefined();
});

// A run whose node went away at 60% achieved read "kept up with every phase".
test('a lost load node is named with when it went and its share, and the share not launched is given', () => {
  const phase = {
    name: 'constant 100/s',
    durationS: 30,
    ratio: 0.6,
    achievedRate: 60,
    targetRate: { mean: 100 },
    generatorCpuPctMean: 20,
    sendLagP99Ms: 1,
    launched: 1800,
  };
  const nodes = [
    { node: 'local-1', launched: 1500, asked: 1500, lost: false },
    { node: 'local-2', launched: 300, asked: 1500, lost: true, lostAtS: 6.1 },
  ];
  const failed = 'failed (load node local-2 went away before its end)';
  const v = judgeGenerator([phase], failed, { generator: { nodes } });
  expect(v).toMatchObject({ saturated: true, lostNodes: ['local-2'], notLaunchedPct: 40 });
  expect(v.verdict).toBe(
    'load node(s) lost: local-2 at 6.1 s, having launched 300 of its 1500; 40% of the arrivals asked were not launched, so the figures describe a smaller load than asked',
  );
  const dropped = judgeGenerator([phase], failed, {
    generator: { nodes: [{ ...nodes[1], dropped: 'a clock reading of null' }] },
  });
  expect(dropped.verdict).toMatch(
    /local-2 at 6.1 s, having launched 300 of its 1500 \(dropped: it sent nonsense, a clock reading of null\)/,
  );
  // Without load nodes, a run that did not complete is not said to have kept up.
  expect(judgeGenerator([phase], 'interrupted').verdict).toMatch(/ended interrupted: its phases were not all run/);
});

// Seen: a p99 send lag of a few ms beside a p99 response time of 1.9 s, and the verdict said
// the generator set the limit. Its lateness explains the latency only when it is a share of it.
test('a send lag is blamed only when it explains the latency (a quarter of the p99 or more)', () => {
  const phase = (lag, p99) => ({
    name: 'constant 40/s',
    durationS: 30,
    ratio: 1,
    achievedRate: 40,
    targetRate: { mean: 40 },
    launched: 1200,
    sendLagP99Ms: lag,
    responseP99Ms: p99,
    generatorCpuPctMean: 70,
    machineCpuPctMean: 120,
    othersCpuPctMean: 5,
  });
  expect(judgeGenerator([phase(5.6, 1900)], 'completed', { cores: 2 })).toEqual({
    saturated: false,
    verdict: 'the load generator kept up with every phase',
  });
  const late = judgeGenerator([phase(600, 1900)], 'completed', { cores: 2 });
  expect(late).toMatchObject({ saturated: true, cause: 'generator' });
  expect(late.verdict).toMatch(/sent late \(p99 send lag 600 ms, of a p99 response time of 1900 ms\)/);
});
