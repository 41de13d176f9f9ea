'use strict';

// Each CPU's reading, for real: the computation pinned to every CPU in turn, by taskset.
const os = require('node:os');
const { readCpuSpeeds } = require('../../../lab/measure/cpu-speeds');

test('every CPU read once, in order, each a time of its own; the spread from them', async () => {
  const r = await readCpuSpeeds();
  expect(r.unavailable).toBeUndefined();
  expect(r.cpus.map((c) => c.cpu)).toEqual(os.cpus().map((_, i) => i));
  for (const c of r.cpus) {
    // (100,000 rounds of a square root and a sine: about a millisecond on this machine's
    // CPUs, never nothing, never a second.)
    expect(c.ms).toBeGreaterThan(0.05);
    expect(c.ms).toBeLessThan(1000);
  }
  const ms = r.cpus.map((c) => c.ms);
  expect(r.spreadPct).toBeCloseTo((Math.max(...ms) / Math.min(...ms) - 1) * 100, 0);
  expect(Date.parse(r.at)).not.toBeNaN();
});

test('a CPU that does not exist, or no taskset: no reading, and why', async () => {
  const none = await readCpuSpeeds({ taskset: '/nonexistent/taskset' });
  expect(none).toEqual({
    at: expect.any(String),
    unavailable: "/nonexistent/taskset is not installed (util-linux's taskset pins the computation to each CPU)",
  });
  const beyond = await readCpuSpeeds({ cpus: os.cpus().length + 1 });
  expect(beyond.unavailable).toMatch(new RegExp(`^CPU ${os.cpus().length}'s reading failed: taskset: `));
});
