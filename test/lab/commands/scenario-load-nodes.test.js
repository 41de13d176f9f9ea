'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, freePortBase, tmpStateDir, errorCode } = require('../../helper');
const { totalArrivals } = require('../../../lab/generators/schedule');

// --load-nodes through the whole scenario command, with LAB_LOAD_NODES=local (the nodes are
// processes of this machine; on a swarm they are tasks: test/cluster/). The summary, its
// thresholds and the report read the merged result, with a row per load node.
test('two load nodes: one result, thresholds on the whole, a row per node in the summary and the report', async () => {
  const resultsDir = tmpStateDir();
  const r = await lab(
    [
      'scenario',
      'ping',
      'load',
      'single',
      '--generator',
      'fast',
      '--load-nodes',
      '2',
      '--scale',
      '0.05',
      '--rate-scale',
      '0.1',
      '--ensure',
      'p99<60000',
      '--ensure',
      'p99<0.001',
      '--json',
      '--no-graphite',
      '--port-base',
      String(await freePortBase(70)),
      '--state-dir',
      tmpStateDir(),
      '--results-dir',
      resultsDir,
    ],
    { env: { LAB_LOAD_NODES: 'local' }, timeoutMs: 180000 },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const s = JSON.parse(r.stdout);
  expect(s.status).toBe('completed');
  const asked = totalArrivals(
    s.phases.map((ph) => ({ duration: ph.durationS, arrivalRate: ph.targetRate.from, rampTo: ph.targetRate.to })),
  );
  expect(s.requestsSent).toBe(asked);
  expect(s.generator.nodes.map((n) => n.node)).toEqual(['local-1', 'local-2']);
  expect(s.generator.nodes.reduce((a, n) => a + n.launched, 0)).toBe(asked);
  const p99s = s.generator.nodes.map((n) => n.latencyMs.p99);
  expect(s.responseTimeMs.p99).toBeGreaterThanOrEqual(Math.min(...p99s));
  expect(s.responseTimeMs.p99).toBeLessThanOrEqual(Math.max(...p99s));
  expect(s.thresholds.map((t) => t.ok)).toEqual([true, false]);
  expect(r.code).toBe(1);
  expect(s.nodes.rows.map((x) => x.node)).toEqual(expect.arrayContaining(['generator@local-1', 'generator@local-2']));
  const report = fs.readFileSync(path.join(s.resultsDir, 'report.html'), 'utf8');
  expect(report).toMatch(/<h2>Load nodes<\/h2>/);
  expect(report).toMatch(/local-2/);
}, 200000);

test("--load-nodes needs a swarm and the lab's own generator: usage errors that say what to do", async () => {
  const noSwarm = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    '--generator',
    'fast',
    '--load-nodes',
    '2',
    '--state-dir',
    tmpStateDir(),
  ]);
  expect(noSwarm.code).toBe(2);
  expect(errorCode(noSwarm.stderr)).toBe('LAB_ERR_USAGE');
  expect(noSwarm.stderr).toMatch(/--engine swarm .*npm run cluster -- up/);
  const artillery = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    '--load-nodes',
    '2',
    '--engine',
    'swarm',
    '--state-dir',
    tmpStateDir(),
  ]);
  expect(artillery.code).toBe(2);
  expect(artillery.stderr).toMatch(/--generator fast or closed/);
  const zero = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    '--generator',
    'fast',
    '--load-nodes',
    '0',
    '--state-dir',
    tmpStateDir(),
  ]);
  expect(zero.code).toBe(2);
});
