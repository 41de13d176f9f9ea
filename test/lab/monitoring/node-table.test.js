'use strict';

const { nodeTable } = require('../../../lab/monitoring/node-table');

describe('per-node table (like docker stats)', () => {
  const samples = [
    { at: 1, nodes: { nginx: { cpuPct: 10, rssMiB: 12, pids: 3 }, 'replica-1': { cpuPct: 50, rssMiB: 80, pids: 4 } } },
    { at: 2, nodes: { nginx: { cpuPct: 30, rssMiB: 14, pids: 3 }, 'replica-1': { cpuPct: 70, rssMiB: 90, pids: 4 } } },
    { at: 2, nodes: { 'replica-1.worker-1': { cpuPct: 99, rssMiB: 1, pids: 1 } } },
  ];

  test('mean and max CPU, max memory and processes per top-level node; network said to be unmeasured', () => {
    const t = nodeTable(samples);
    expect(t.rows).toEqual([
      expect.objectContaining({
        node: 'nginx',
        cpuPctMean: 20,
        cpuPctMax: 30,
        memMiBMax: 14,
        pidsMax: 3,
        netInBytes: null,
      }),
      expect.objectContaining({ node: 'replica-1', cpuPctMean: 60, cpuPctMax: 70, memMiBMax: 90, pidsMax: 4 }),
    ]);
    expect(t.note).toMatch(/network bytes: not measured/);
  });

  test('a memory limit gives the share used', () => {
    const t = nodeTable(samples, { nginx: { memoryMiB: 25 } });
    expect(t.rows[0]).toMatchObject({ memLimitMiB: 25, memPctOfLimit: 56 });
    expect(t.rows[1]).toMatchObject({ memLimitMiB: null, memPctOfLimit: null });
  });
});

// Each node's wait for a core (issue 84): its processes' run-queue wait, a share of wall time
// each (a node of three processes that waited 60% between them waited 20% each).
test("each node's wait for a core, a mean per process; null where the kernel gave none", () => {
  const samples = [
    {
      nodes: {
        'replica-1': { cpuPct: 10, rssMiB: 50, pids: 3, waitPct: 60 },
        nginx: { cpuPct: 5, rssMiB: 10, pids: 2 },
      },
    },
    {
      nodes: {
        'replica-1': { cpuPct: 10, rssMiB: 50, pids: 3, waitPct: 30 },
        nginx: { cpuPct: 5, rssMiB: 10, pids: 2 },
      },
    },
  ];
  const { rows } = nodeTable(samples);
  expect(rows.find((r) => r.node === 'replica-1').waitPctMean).toBe(15);
  expect(rows.find((r) => r.node === 'nginx').waitPctMean).toBeNull();
});

// A cluster's worker that ended while its primary stayed (issue 84): the sampler counts its
// children that ended; the row keeps the most counted.
test('the workers that ended inside a node, counted from its samples', () => {
  const samples = [
    { nodes: { 'replica-1': { cpuPct: 10, rssMiB: 50, pids: 3 } } },
    { nodes: { 'replica-1': { cpuPct: 10, rssMiB: 50, pids: 3, childExits: 1 } } },
    { nodes: { 'replica-1': { cpuPct: 10, rssMiB: 50, pids: 3, childExits: 2 } } },
  ];
  expect(nodeTable(samples).rows[0].workerExits).toBe(2);
  expect(nodeTable(samples.slice(0, 1)).rows[0].workerExits).toBe(0);
});
