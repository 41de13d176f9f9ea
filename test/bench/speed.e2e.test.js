'use strict';

// The bench's machine-speed probe (bench/speed.js), for real: a child pinned to each CPU
// samples the same work every period until stopped, and leaves nothing running.
const os = require('node:os');
const { startSpeedProbe } = require('../../bench/speed');

const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('each CPU sampled every period, its CPU time in ms, until stopped; its children ended', async () => {
  const probe = startSpeedProbe({ everyMs: 50, rounds: 2000 });
  const cpus = os.cpus().map((_, i) => i);
  // (Until each CPU has three samples, 30 s at most: a fixed 1.5 s saw none on a CI machine
  // whose cores the other files kept busy, each child still starting.)
  const enough = () => cpus.every((cpu) => probe.samples.filter((s) => s.cpu === cpu).length >= 3);
  for (const end = Date.now() + 30000; !enough() && Date.now() < end;) await new Promise((r) => setTimeout(r, 100));
  probe.stop();
  expect([...new Set(probe.samples.map((s) => s.cpu))].sort()).toEqual(cpus);
  for (const cpu of cpus) expect(probe.samples.filter((s) => s.cpu === cpu).length).toBeGreaterThanOrEqual(3);
  for (const s of probe.samples) {
    expect(Number.isFinite(s.at)).toBe(true);
    expect(s.cpuMs).toBeGreaterThanOrEqual(0);
  }
  await new Promise((r) => setTimeout(r, 300));
  const n = probe.samples.length;
  await new Promise((r) => setTimeout(r, 200));
  expect(probe.samples).toHaveLength(n);
  expect(probe.pids.filter(alive)).toEqual([]);
});
