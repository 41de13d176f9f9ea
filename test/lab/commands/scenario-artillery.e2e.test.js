'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { jsonOf, scenarioRun } = require('../../helper');
const { onlyWith } = require('../../requires');

// End to end through the real stack (pm2, nginx, Artillery), with Artillery, the course's
// generator. Scaled down so the whole file takes about a minute: --scale shortens every phase, --rate-scale 0.1 keeps Artillery well
// below what this 2-core machine can generate, --heavy-ms 300 keeps /heavy short.
const scenario = scenarioRun;

function checkRun(r) {
  expect(r.stderr).not.toMatch(/unexpected failure/);
  expect(r.code).toBe(0);
  const summary = jsonOf(r);
  expect(summary.status).toBe('completed');
  const files = fs.readdirSync(summary.resultsDir);
  for (const f of ['artillery.json', 'summary.json', 'script.yml', 'deployment.json', 'machine.json', 'events.jsonl']) {
    expect(files).toContain(f);
  }
  if (summary.deployment) expect(files).toContain('nginx.conf');
  // The summary agrees with Artillery's own report: the counts add up.
  const report = JSON.parse(fs.readFileSync(path.join(summary.resultsDir, 'artillery.json'), 'utf8'));
  const c = report.aggregate.counters;
  expect(summary.scenariosLaunched).toBe(c['vusers.created']);
  expect(summary.scenariosCompleted).toBe(c['vusers.completed'] || 0);
  expect(summary.requestsCompleted).toBe(c['http.responses'] || 0);
  expect(summary.scenariosLaunched).toBe(summary.scenariosCompleted + summary.scenariosFailed);
  const codes = Object.values(summary.codes).reduce((a, b) => a + b, 0);
  expect(codes).toBe(summary.requestsCompleted);
  const errors = Object.values(summary.errors).reduce((a, b) => a + b, 0);
  expect(errors).toBe(summary.scenariosFailed);
  const launched = summary.phases.reduce((a, p) => a + p.launched, 0);
  expect(Math.abs(launched - summary.scenariosLaunched)).toBeLessThanOrEqual(summary.phases.length);
  expect(summary.machine.cores).toBeGreaterThan(0);
  expect(summary.generator.samples).toBeGreaterThan(0);
  // Nothing left running: the deployment was torn down.
  expect(fs.existsSync(path.join(r.stateDir, 'state.json'))).toBe(false);
  return summary;
}

const FAST = ['--rate-scale', '0.1', '--heavy-ms', '300'];

describe('npm run scenario with Artillery, end to end', () => {
  // Every scenario once, and the endpoints of three kinds (constant, CPU-bound, a black box;
  // the asset endpoint below): the scripts of every pair are checked without running them,
  // in test/artillery/, and the course study's tests run the others with the lab's generator.
  test.each([
    ['ping', 'load', ['--scale', '0.03']],
    ['heavy', 'spikes', ['--scale', '0.03']],
    ['bbox1', 'endurance', ['--duration', '4s']],
  ])('%s %s against single', async (endpoint, scenarioName, scale) => {
    const r = await scenario([endpoint, scenarioName, 'single'], [...scale, ...FAST]);
    const s = checkRun(r);
    expect(s.endpoint).toBe(endpoint);
    expect(s.deployment.name).toBe('single');
  });

  // (Capped edges: control groups, as root; skipped and counted without them, never run
  // uncapped under a title that says caps.)
  onlyWith('cgroups')(
    'asset load cdn (Artillery drawing objects): per-edge requests and hit ratios, caps in the table',
    async () => {
      const r = await scenario(
        ['asset', 'load', 'cdn'],
        ['--scale', '0.05', '--rate-scale', '0.1', '--cap', 'edge=50%,64M'],
      );
      const s = checkRun(r);
      const edges = s.nodes.rows.filter((n) => n.node.startsWith('edge-'));
      expect(edges).toHaveLength(4);
      // Every request went through exactly one edge; Zipf-popular objects are hits.
      expect(edges.reduce((a, e) => a + e.requests, 0)).toBe(s.requestsCompleted);
      const hits = edges.reduce((a, e) => a + e.requests * (e.hitRatio || 0), 0);
      expect(hits / s.requestsCompleted).toBeGreaterThan(0.2);
      for (const e of edges) expect(e).toMatchObject({ cpuCapPct: 50, memLimitMiB: 64, oomKills: 0 });
      expect(fs.readFileSync(path.join(s.resultsDir, 'report.html'), 'utf8')).toContain('cache hit ratio');
    },
  );
});
