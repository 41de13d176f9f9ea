'use strict';

// The bench's machine-speed probe (bench/speed.js): samples of a fixed computation's CPU time,
// and which of them fell while a search's levels ran.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { levelSpans, speedDuring, median } = require('../../bench/speed');

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
      { cpu: 0, at: 500, cpuMs: 9 },
      { cpu: 1, at: 1500, cpuMs: 1.1 },
      { cpu: 0, at: 1600, cpuMs: 1.8 },
      { cpu: 0, at: 2500, cpuMs: 1.7 },
      { cpu: 1, at: 5000, cpuMs: 9 },
      { cpu: 1, at: 11000, cpuMs: 1.2 },
    ];
    // Over all CPUs, and each CPU's own (the two can differ: the reason for byCpu).
    expect(speedDuring(samples, levelSpans(dir))).toEqual({
      medianMs: 1.45,
      samples: 4,
      byCpu: [
        { cpu: 0, medianMs: 1.75, samples: 2 },
        { cpu: 1, medianMs: 1.15, samples: 2 },
      ],
    });
    expect(speedDuring(samples, [[20000, 30000]])).toBeNull();
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('the median of an even count is the mean of the middle two', () => {
  expect(median([4, 1, 3, 2])).toBe(2.5);
  expect(median([])).toBeNull();
});
