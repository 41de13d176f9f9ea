'use strict';

// The bench's machine-speed probe (bench/speed.js): samples of a fixed computation's CPU time,
// and which of them fell while a search's levels ran.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { startSpeedProbe, levelSpans, speedDuring, median } = require('../../bench/speed');

test('the probe samples the same work every period, its CPU time in ms, until stopped', async () => {
  const probe = startSpeedProbe({ everyMs: 20, rounds: 2000 });
  await new Promise((r) => setTimeout(r, 150));
  probe.stop();
  const n = probe.samples.length;
  expect(n).toBeGreaterThanOrEqual(3);
  for (const s of probe.samples) {
    expect(Number.isFinite(s.at)).toBe(true);
    expect(s.cpuMs).toBeGreaterThanOrEqual(0);
  }
  await new Promise((r) => setTimeout(r, 60));
  expect(probe.samples).toHaveLength(n);
});

test("a count's level spans from its levels' monitor samples; the work's median inside them only", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-speed-'));
  try {
    const level = (name, ats) => {
      fs.mkdirSync(path.join(dir, name));
      fs.writeFileSync(
        path.join(dir, name, 'nodes.jsonl'),
        `${ats.map((at) => JSON.stringify({ at, nodes: {} })).join('\n')}\n`,
      );
    };
    level('01-75', [1000, 2000, 3000]);
    level('02-150', [10000, 12000]);
    fs.mkdirSync(path.join(dir, 'probe-01'));
    expect(levelSpans(dir)).toEqual([
      [1000, 3000],
      [10000, 12000],
    ]);
    expect(levelSpans(path.join(dir, 'none'))).toEqual([]);
    const samples = [
      { at: 500, cpuMs: 9 },
      { at: 1500, cpuMs: 1.1 },
      { at: 2500, cpuMs: 1.8 },
      { at: 5000, cpuMs: 9 },
      { at: 11000, cpuMs: 1.2 },
    ];
    expect(speedDuring(samples, levelSpans(dir))).toEqual({ medianMs: 1.2, samples: 3 });
    expect(speedDuring(samples, [[20000, 30000]])).toBeNull();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the median of an even count is the mean of the middle two', () => {
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNull();
});
