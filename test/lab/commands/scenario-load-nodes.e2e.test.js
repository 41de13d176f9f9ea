'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, freePortBase, tmpStateDir, errorCode, jsonOf, flagsOf } = require('../../helper');
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
  const s = jsonOf(r);
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
  expect(r.code).toBe(99);
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
    ...flagsOf({ generator: 'fast', loadNodes: 2, stateDir: tmpStateDir() }),
  ]);
  expect(noSwarm.code).toBe(2);
  expect(errorCode(noSwarm.stderr)).toBe('LAB_ERR_NOT_ON_ENGINE');
  expect(noSwarm.stderr).toMatch(/--engine swarm .*npm run cluster -- up/);
  const artillery = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    ...flagsOf({ loadNodes: 2, engine: 'swarm', stateDir: tmpStateDir() }),
  ]);
  expect(artillery.code).toBe(2);
  expect(artillery.stderr).toMatch(/--generator fast or closed/);
  const zero = await lab([
    'scenario',
    'ping',
    'load',
    'single',
    ...flagsOf({ generator: 'fast', loadNodes: 0, stateDir: tmpStateDir() }),
  ]);
  expect(zero.code).toBe(2);
});

// A tokenless `null` line to the coordinator killed the lab on `m.op` of null, leaving the
// deployment, statsd and carbon up, the lock stale and no summary.
test("a stranger's null line to the coordinator is closed; the run completes, on a port of its --port-base", async () => {
  const net = require('node:net');
  const { startProgram } = require('../../helper');
  const base = await freePortBase(70);
  const stateDir = tmpStateDir();
  const resultsDir = tmpStateDir();
  let sent = false;
  const run = await startProgram(
    'lab/cli',
    [
      'scenario',
      'ping',
      'endurance',
      'single',
      ...flagsOf({
        generator: 'fast',
        loadNodes: 2,
        duration: '6s',
        rateScale: 0.1,
        graphite: false,
        json: true,
        portBase: base,
        stateDir: stateDir,
        resultsDir: resultsDir,
      }),
    ],
    {
      env: { LAB_LOAD_NODES: 'local' },
      timeoutMs: 120000,
      ready: (err) => {
        const m = /coordinating 2 load node\(s\) on 127\.0\.0\.1:(\d+)/.exec(err);
        if (m && !sent) {
          sent = true;
          expect(Number(m[1])).toBe(base + 42);
          const s = net.connect({ host: '127.0.0.1', port: Number(m[1]) }, () => s.end('null\n'));
          s.on('error', () => {});
        }
        return Boolean(m);
      },
    },
  );
  const { code } = await run.exited;
  const s = JSON.parse(run.output().stdout);
  expect(s.status).toBe('completed');
  expect(code).toBe(0);
  expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
  expect(fs.existsSync(path.join(stateDir, '.lab-lock'))).toBe(false);
}, 200000);

// The same scenario model on load nodes (issue 39): a script's flow, each request by name,
// merged exactly from both nodes.
test("a script's flow on two load nodes: each request by name, as many as the script asks", async () => {
  const { ownPlace, ROOT } = require('../../helper');
  const shop = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
  const flow = path.join(ROOT, 'test', 'fixtures', 'scripts', 'shop-flow.yml');
  const r = await lab(
    [
      'scenario',
      '--script',
      flow,
      'single',
      ...flagsOf({ app: shop, generator: 'fast', loadNodes: 2, graphite: false, json: true }),
      ...(await ownPlace({ ports: 70 })),
    ],
    { env: { LAB_LOAD_NODES: 'local' }, timeoutMs: 180000 },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const s = jsonOf(r);
  expect(s.status).toBe('completed');
  expect(s.scenariosLaunched).toBe(110);
  expect(s.requests.map((q) => [q.name, q.completed, q.codes])).toEqual([
    ['GET /api/items', 110, { 200: 110 }],
    ['POST /api/cart', 110, { 201: 110 }],
  ]);
  expect(s.generator.nodes.map((n) => n.node)).toEqual(['local-1', 'local-2']);
}, 200000);
