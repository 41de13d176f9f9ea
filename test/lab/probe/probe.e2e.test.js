'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, ownPlace, ROOT, jsonOf, flagsOf } = require('../../helper');
const { journey, openPage } = require('../../browser');

// The runtime probe (probe/preload.js, lab/probe/) in a service the lab has never seen and
// that is not changed for it (test/fixtures/apps/loops: /spin computes, /wait waits on a
// timer), and in the lab's own: the four figures on every replica's row, the loop saturated
// by a CPU-bound path and idle on a timer, each worker on its own, and --no-probe.
// (Bounds, not values: they hold on a busy 2-core machine. A saturated loop is busy at least
// 70% of the run even with the ramp's first, lighter seconds; a 50 ms timer at 50/s at most
// 30%, where it uses ~3% here.)
const LOOPS = path.join(ROOT, 'test', 'fixtures', 'apps', 'loops');
const FIELDS = ['eventLoopDelayP99Ms', 'eventLoopUtilization', 'gcPauseMs', 'heapUsedMiBMax'];

async function scenario(args) {
  const r = await lab(['scenario', ...args, '--generator', 'fast', '--json', '--no-graphite', ...(await ownPlace())], {
    timeoutMs: 180000,
  });
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  expect(r.code).toBe(0);
  const { resultsDir } = jsonOf(r);
  return { dir: resultsDir, s: JSON.parse(fs.readFileSync(path.join(resultsDir, 'summary.json'), 'utf8')) };
}
const replicas = (s) => s.nodes.rows.filter((r) => /^replica-\d+$/.test(r.node));

describe('your service, unchanged', () => {
  journey(
    'a CPU-bound path on single: its loop busy 70% or more, said in words',
    async () => {
      const { s, dir } = await scenario(['/spin?ms=40', 'load', 'single', '--app', LOOPS, '--scale', '0.05']);
      const [row] = replicas(s);
      for (const f of FIELDS) expect(typeof row[f]).toBe('number');
      expect(row.eventLoopUtilization).toBeGreaterThanOrEqual(0.7);
      expect(row.eventLoopDelayP99Ms).toBeLessThanOrEqual(row.eventLoopDelayMaxMs);
      const finding = s.findings.find((f) => f.id === 'loop-busy');
      // (With GC a large share of the busy time, the finding says so: it depends on the run.)
      expect(finding.text).toMatch(
        /^the event loop of replica-1 was busy \d+% of the time( \(part of it GC: see below\))?: CPU-bound in JavaScript/,
      );
      return dir;
    },
    // The page as a person meets it: the finding, the figures in the node table, the charts drawn.
    async (dir, browser) => {
      const seen = await openPage(browser, path.join(dir, 'report.html'), 'probe-spin-single');
      expect(seen.problems).toEqual([]);
      const charts = seen.charts.filter((c) => /Event-loop|GC time|Heap used/.test(c.title));
      expect(charts.map((c) => c.marks > 0)).toEqual([true, true, true, true]);
      expect(seen.tables.some((t) => t.heads.includes('event loop busy'))).toBe(true);
      const context = await browser.newContext({ offline: true });
      const page = await context.newPage();
      await page.goto(`file://${path.join(dir, 'report.html')}`);
      const text = await page.evaluate(() => document.body.innerText); // eslint-disable-line no-undef
      await context.close();
      expect(text).toContain('CPU-bound in JavaScript');
    },
    { timeoutMs: 240000 },
  );

  test('a path that waits on a timer, replicated: every replica reports the four figures, its loop idle', async () => {
    const { s } = await scenario(['/wait?ms=50', 'load', 'replicated', '--app', LOOPS, '--scale', '0.05']);
    const rows = replicas(s);
    expect(rows).toHaveLength(3);
    for (const row of rows) {
      for (const f of FIELDS) expect(typeof row[f]).toBe('number');
      expect(row.eventLoopUtilization).toBeLessThanOrEqual(0.3);
    }
    expect(s.findings.map((f) => f.id)).not.toContain('loop-busy');
    // The replicas' own counts, as the probe saw them, are the run's (within the seconds at
    // the window's edges: lab/probe/figures.js).
    const probed = rows.reduce((a, r) => a + r.requests, 0);
    expect(Math.abs(probed - s.requestsCompleted)).toBeLessThanOrEqual(Math.max(3, s.requestsCompleted * 0.02));
  }, 200000);

  test("multi, workers under the lab's primary: each worker's requests and loop on its own row", async () => {
    const { s } = await scenario(['/spin?ms=5', 'load', 'multi', '--workers', '2', '--app', LOOPS, '--scale', '0.05']);
    const procs = s.nodes.processes.filter((p) => p.node === 'replica-1');
    expect(procs.map((p) => p.role).sort()).toEqual(['primary', 'worker', 'worker']);
    const workers = procs.filter((p) => p.role === 'worker');
    expect(workers.map((w) => w.worker).sort()).toEqual([1, 2]);
    // the answers came from the workers, none from the primary (within the window's edges)
    const answered = workers.reduce((a, w) => a + w.requests, 0);
    expect(Math.abs(answered - s.requestsCompleted)).toBeLessThanOrEqual(Math.max(3, s.requestsCompleted * 0.02));
    expect(procs.find((p) => p.role === 'primary').requests).toBe(0);
    for (const w of workers) expect(typeof w.eventLoopUtilization).toBe('number');
    const [row] = replicas(s);
    expect(row.loops).toBe(2);
    for (const f of FIELDS) expect(typeof row[f]).toBe('number');
  }, 200000);

  test('--no-probe: the figures are left out, and the run says why', async () => {
    const { s } = await scenario(['/wait', 'load', 'single', '--app', LOOPS, '--scale', '0.03', '--no-probe']);
    const [row] = replicas(s);
    for (const f of FIELDS) expect(row[f]).toBeUndefined();
    expect(s.nodes.runtimeNote).toBe('event loop, GC and heap not measured: deployed with --no-probe');
    expect(s.nodes.processes).toBeUndefined();
  }, 200000);
});

test("the lab's own service on multi-replicated: every replica and worker reports", async () => {
  const { s } = await scenario([
    'ping',
    'load',
    'multi-replicated',
    ...flagsOf({ replicas: 2, workers: 2, scale: 0.03 }),
  ]);
  const rows = replicas(s);
  expect(rows).toHaveLength(2);
  for (const row of rows) for (const f of FIELDS) expect(typeof row[f]).toBe('number');
  const workers = s.nodes.processes.filter((p) => p.role === 'worker');
  expect(workers).toHaveLength(4);
}, 200000);
