'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { jsonOf, scenarioRun } = require('../../helper');

// End to end through the real stack (pm2, nginx) with the lab's own generators (Artillery's
// runs are in scenario-artillery.e2e.test.js). Scaled down so the whole file takes about a minute: --scale shortens every phase, --rate-scale 0.1 keeps Artillery well
// below what this 2-core machine can generate, --heavy-ms 300 keeps /heavy short.
const scenario = scenarioRun;

const FAST = ['--rate-scale', '0.1', '--heavy-ms', '300'];

describe('npm run scenario, end to end', () => {
  // (Each deployment's own shape is test/lab/commands/deploy.e2e.test.js; here one run through
  // several replicas and the hub, end to end.)
  test.each(['replicated'])('ping load against %s', async (deployment) => {
    const r = await scenario(['ping', 'load', deployment], ['--scale', '0.04', '--generator', 'fast', ...FAST]);
    expect(r.code).toBe(0);
    const s = jsonOf(r);
    expect(s.status).toBe('completed');
    expect(s.deployment.name).toBe(deployment);
    expect(s.codes['200']).toBe(s.requestsCompleted);
    expect(s.scenariosLaunched).toBe(s.requestsCompleted);
    expect(fs.existsSync(path.join(r.stateDir, 'state.json'))).toBe(false);
  });

  test('--generator fast: records with µs latencies, the generator named, a failed --ensure exits 99', async () => {
    const r = await scenario(
      ['ping', 'load', 'single'],
      ['--scale', '0.05', '--generator', 'fast', '--ensure', 'rate>=0.99', '--ensure', 'p99<0.001', ...FAST],
    );
    expect(r.code).toBe(99);
    const s = jsonOf(r);
    expect(s.status).toBe('completed');
    expect(s.generator.name).toBe('fast');
    expect(s.generator.cpuMsPerRequest).toBeGreaterThan(0);
    expect(s.responseTimeMs.p50).toBeGreaterThan(0);
    expect(s.responseTimeMs.p99).toBeLessThanOrEqual(s.responseTimeMs.max);
    expect(s.thresholds.map((t) => [t.text, t.ok])).toEqual([
      ['rate>=0.99', true],
      ['p99<0.001', false],
    ]);
    expect(s.nodes.rows.map((r) => r.node)).toEqual(
      expect.arrayContaining(['nginx', 'replica-1', 'bbox', 'generator']),
    );
    const files = fs.readdirSync(s.resultsDir);
    for (const f of ['records.jsonl', 'summary.json', 'report.html', 'generator-plan.json']) expect(files).toContain(f);
    expect(fs.readFileSync(path.join(s.resultsDir, 'report.html'), 'utf8')).toContain('memory % of limit');
    expect(fs.existsSync(path.join(r.stateDir, 'state.json'))).toBe(false);
  });

  test('ping load single --balancer nginx-l4: the run goes through nginx at L4', async () => {
    const r = await scenario(
      ['ping', 'load', 'single'],
      ['--scale', '0.04', '--balancer', 'nginx-l4', '--generator', 'fast', ...FAST],
    );
    expect(r.code).toBe(0);
    const s = jsonOf(r);
    expect(s.status).toBe('completed');
    expect(s.deployment.balancer.kind).toBe('nginx-l4');
    expect(fs.readFileSync(path.join(s.resultsDir, 'nginx.conf'), 'utf8')).toMatch(/^stream \{/m);
  });

  test('--generator closed: N connections for the given duration', async () => {
    const r = await scenario(
      ['bbox1', 'load', 'single'],
      ['--generator', 'closed', '--connections', '5', '--duration', '3s', '--keepalive'],
    );
    expect(r.code).toBe(0);
    const s = jsonOf(r);
    expect(s.generator).toMatchObject({ name: 'closed', loop: 'closed' });
    // 5 connections over a ~1.1 s box for 3 s: about 15 answers.
    expect(s.requestsCompleted).toBeGreaterThanOrEqual(10);
    expect(s.requestsCompleted).toBeLessThanOrEqual(20);
    expect(s.responseTimeMs.p50).toBeGreaterThan(1000);
  });
});
