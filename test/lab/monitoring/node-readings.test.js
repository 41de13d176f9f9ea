'use strict';

const { countVerdicts } = require('../../../lab/kinds/nginx-edge');
const nodeReadings = require('../../../lab/monitoring/node-readings');

const { withRatio } = nodeReadings;
const { nodeTable } = require('../../../lab/monitoring/node-table');
const renderSummary = require('../../../lab/results/render-summary');

describe("edges' caches and caps in the node table", () => {
  test('verdicts counted per line; the hit ratio leaves out what the cache did not decide on', () => {
    const c = withRatio(countVerdicts('HIT\nMISS\nHIT\n-\nEXPIRED\nHIT\n'));
    expect(c).toEqual({ requests: 6, verdicts: { HIT: 3, MISS: 1, '-': 1, EXPIRED: 1 }, hitRatio: 3 / 5 });
    expect(withRatio(countVerdicts('')).hitRatio).toBe(null);
    // Varnish's counters: passes (BYPASS) are not decisions of the cache either.
    expect(withRatio({ requests: 10, verdicts: { HIT: 6, MISS: 2, BYPASS: 2 } }).hitRatio).toBe(0.75);
  });

  test('caps, what the group accounted, OOM kills and hit ratios reach the rows and the text', () => {
    const samples = [
      { at: 1, nodes: { 'edge-1': { cpuPct: 2, rssMiB: 12, pids: 4 }, nginx: { cpuPct: 5, rssMiB: 9, pids: 3 } } },
    ];
    const t = nodeTable(
      samples,
      { 'edge-1': { cpuPct: 2, memoryMiB: 25 } },
      { kernel: { 'edge-1': { cpuPct: 1.94, oomKills: 2 } }, cache: { 'edge-1': { requests: 100, hitRatio: 0.75 } } },
    );
    expect(t.rows[0]).toMatchObject({
      node: 'edge-1',
      cpuCapPct: 2,
      cgroupCpuPct: 1.9,
      oomKills: 2,
      memLimitMiB: 25,
      memPctOfLimit: 48,
      requests: 100,
      hitRatio: 0.75,
    });
    expect(t.rows[1]).toMatchObject({ node: 'nginx', cpuCapPct: null, oomKills: null, requests: null });
    const text = renderSummary({
      endpoint: 'asset',
      scenario: 'load',
      deployment: { name: 'cdn' },
      status: 'completed',
      durationS: 12,
      responseTimeMs: { min: 1, median: 2, p95: 3, p99: 4, max: 5 },
      codes: { 200: 100 },
      errors: {},
      phases: [],
      saturation: { verdict: 'ok' },
      nodes: t,
    });
    expect(text).toMatch(/CPU cap\s+cgroup CPU\s+throttled\s+OOM kills\s+requests\s+hit ratio/);
    expect(text).toMatch(/edge-1 .*2%\s+1\.9%\s+-\s+2\s+100\s+75%/);
    expect(text).toMatch(/edge-1 hit its memory cap: the kernel OOM-killed 2 of its processes/);
  });

  test("the group's periods throttled and own memory: new columns, and % of the limit from the group", () => {
    const samples = [{ at: 1, nodes: { lb: { cpuPct: 1.5, rssMiB: 30, pids: 3 } } }];
    const t = nodeTable(
      samples,
      { lb: { cpuPct: 2, memoryMiB: 25 } },
      {
        kernel: {
          lb: {
            cpuPct: 1.4,
            oomKills: 0,
            periodUs: 100000,
            periods: 200,
            throttledPeriods: 150,
            throttledUs: 9500000,
            memoryPeakBytes: 20 * 2 ** 20,
          },
        },
      },
    );
    // RSS summed says 30 MiB (120% of the limit); the group says 20 MiB: 80%.
    expect(t.rows[0]).toMatchObject({
      periodMs: 100,
      throttledPct: 75,
      throttledMs: 9500,
      groupMemMiBMax: 20,
      memPctOfLimit: 80,
      memPctOfLimitFrom: 'group',
    });
    // Without the kernel's figures the old reading stays, and says where it came from.
    const plain = nodeTable(samples, { lb: { cpuPct: 2, memoryMiB: 25 } });
    expect(plain.rows[0]).toMatchObject({
      throttledPct: null,
      groupMemMiBMax: null,
      memPctOfLimit: 120,
      memPctOfLimitFrom: 'rss',
    });
  });

  test("a group's CPU is taken over the load's own window: stop() ends it, what comes after is not counted", async () => {
    // A node busy at 20% of a core while the load runs, idle after it.
    let usageUs = 0;
    let busy = true;
    const started = Date.now();
    const runtime = {
      readCaps: () => {
        usageUs = busy ? (Date.now() - started) * 1000 * 0.2 : usageUs;
        return { 'replica-1': { cpuUsageUs: usageUs } };
      },
    };
    const state = { runtime: 'local', caps: { 'replica-1': { cpuPct: 20, memoryBytes: null } } };
    const probe = nodeReadings(runtime, state);
    probe.start();
    await new Promise((r) => setTimeout(r, 300));
    probe.stop();
    busy = false;
    // The summary is written later: without stop() this window would be twice as long.
    await new Promise((r) => setTimeout(r, 300));
    const { kernel } = probe.read();
    // 20% within a tolerance for timer slack on a busy machine.
    expect(kernel['replica-1'].cpuPct).toBeGreaterThan(15);
    expect(kernel['replica-1'].cpuPct).toBeLessThan(21);
  });
});
