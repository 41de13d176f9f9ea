'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');
const { lab, freePortBase, tmpStateDir, chartSpecs, jsonOf, flagsOf } = require('../../helper');
const { onlyWith } = require('../../requires');

const FAST = ['--scale', '0.05', '--rate-scale', '0.1'];

async function run(words, extra = [], env = {}) {
  const stateDir = tmpStateDir();
  const resultsDir = tmpStateDir();
  const base = await freePortBase();
  const r = await lab(
    [
      'scenario',
      ...words,
      ...flagsOf({ json: true, portBase: base, stateDir: stateDir, resultsDir: resultsDir }),
      ...extra,
    ],
    { env, timeoutMs: 180000 },
  );
  if (r.code !== 0) throw new Error(`scenario failed (${r.code}): ${r.stderr}`);
  return { summary: jsonOf(r), stateDir };
}

const lines = (file) =>
  fs
    .readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('monitoring of a run', () => {
  let withStatsd;
  beforeAll(async () => {
    withStatsd = await run(['bbox1', 'load', 'multi'], FAST);
  });

  test("the recorded series hold the service's timers, Artillery's counters and CPU/RSS of every node", () => {
    const { summary } = withStatsd;
    expect(summary.monitoring.statsd.ok).toBe(true);
    const flushes = lines(path.join(summary.resultsDir, 'statsd.jsonl'));
    const keys = new Set(
      flushes.flatMap((f) => [...Object.keys(f.counters), ...Object.keys(f.gauges), ...Object.keys(f.timers)]),
    );
    const has = (re) => [...keys].some((k) => re.test(k));
    expect(has(/\.service\.bbox1\.response_time$/)).toBe(true);
    expect(has(/\.service\.bbox\.bbox1\.call$/)).toBe(true);
    expect(has(/\.artillery\.vusers_created$/)).toBe(true);
    expect(has(/\.artillery\.response_time\.p95$/)).toBe(true);
    for (const node of ['nginx', 'bbox', 'replica-1', 'replica-1_worker-1', 'replica-1_worker-3', 'generator']) {
      expect(has(new RegExp(`\\.node\\.${node}\\.cpu_pct$`))).toBe(true);
      expect(has(new RegExp(`\\.node\\.${node}\\.rss_mib$`))).toBe(true);
    }
    // The service's own count of answered requests matches Artillery's.
    const served = flushes.reduce(
      (a, f) => a + (Object.entries(f.counters).find(([k]) => k.endsWith('.service.bbox1.status.200'))?.[1] || 0),
      0,
    );
    expect(served).toBe(summary.codes['200']);
    // And the sampler wrote every node's figures every second.
    const nodes = lines(path.join(summary.resultsDir, 'nodes.jsonl'));
    expect(nodes.length).toBeGreaterThan(5);
    expect(Object.keys(nodes[nodes.length - 2].nodes)).toEqual(expect.arrayContaining(['nginx', 'replica-1', 'bbox']));
    // Each node's wait for a core (its processes' run-queue wait, from the kernel): a share of
    // wall time, in every row of the node table.
    const waits = nodes.slice(1).map((n) => n.nodes['replica-1']?.waitPct);
    expect(waits.filter(Number.isFinite).length).toBeGreaterThan(3);
    for (const w of waits.filter(Number.isFinite)) expect(w).toBeGreaterThanOrEqual(0);
    const row = summary.nodes.rows.find((r) => r.node === 'replica-1');
    expect(row.waitPctMean).toBeGreaterThanOrEqual(0);
  });

  const carbon = onlyWith('carbon');
  carbon('with carbon installed, whisper files appear and hold the same counts', () => {
    const { summary } = withStatsd;
    expect(summary.monitoring.graphite.ok).toBe(true);
    const flushes = lines(path.join(summary.resultsDir, 'statsd.jsonl'));
    const key = Object.keys(Object.assign({}, ...flushes.map((f) => f.counters))).find((k) =>
      k.endsWith('.service.bbox1.status.200'),
    );
    const expected = flushes.reduce((a, f) => a + (f.counters[key] || 0), 0);
    const wsp = path.join(summary.monitoring.graphite.whisperDir, 'counters', ...key.split('.'), 'count.wsp');
    expect(fs.existsSync(wsp)).toBe(true);
    const out = execFileSync(
      '/usr/bin/python3',
      ['/usr/bin/whisper-fetch', '--from', String(Math.floor(Date.parse(summary.startedAt) / 1000) - 60), wsp],
      { encoding: 'utf8' },
    );
    const total = out
      .split('\n')
      .map((l) => l.split('\t')[1])
      .filter((v) => v && v !== 'None')
      .reduce((a, v) => a + Number(v), 0);
    expect(total).toBe(expected);
  });

  test('without StatsD or carbon the run completes and the report says which sources were missing', async () => {
    const { summary } = await run(['ping', 'load', 'single'], [...FAST, '--no-statsd', '--generator', 'fast'], {
      LAB_CARBON: '/nonexistent/carbon-cache',
    });
    expect(summary.status).toBe('completed');
    expect(summary.monitoring.statsd).toMatchObject({ ok: false, reason: expect.stringMatching(/--no-statsd/) });
    expect(summary.monitoring.graphite.ok).toBe(false);
    const html = fs.readFileSync(path.join(summary.resultsDir, 'report.html'), 'utf8');
    expect(html).toMatch(/statsd: missing/);
    expect(html).toMatch(/graphite: missing/);
    // Nodes are still sampled without StatsD.
    expect(lines(path.join(summary.resultsDir, 'nodes.jsonl')).length).toBeGreaterThan(3);
  });

  test('the compare view of two runs shows both', async () => {
    // (The lab's own generator: one Artillery run, above, is enough for this file.)
    const other = await run(['bbox1', 'load', 'single'], [...FAST, '--no-graphite', '--generator', 'fast']);
    const out = path.join(other.stateDir, 'compare.html');
    const r = await lab(['compare', withStatsd.summary.resultsDir, other.summary.resultsDir, '--out', out]);
    expect(r.code).toBe(0);
    const html = fs.readFileSync(out, 'utf8');
    expect(html).toMatch(/bbox1 load multi/);
    expect(html).toMatch(/bbox1 load single/);
    // Every panel has a series per run.
    const panels = chartSpecs(html);
    expect(panels.length).toBeGreaterThanOrEqual(5);
    for (const p of panels) expect(p.series).toHaveLength(2);
  });
});
