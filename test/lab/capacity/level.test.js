'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { judgeLevel } = require('../../../lab/capacity/level');
const { parseSlo } = require('../../../lab/capacity/slo');

// A level's run folder as the scenario command leaves it: a phase record, then seconds.
function levelDir(seconds) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-level-'));
  const t0 = 1_700_000_000_000;
  const lines = [{ type: 'phase', at: t0, name: 'constant' }];
  seconds.forEach(([launched, completed], i) =>
    lines.push({ type: 'second', at: t0 + i * 1000, launched, completed, codes: { 200: completed }, errors: {} }),
  );
  fs.writeFileSync(path.join(dir, 'records.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return { dir, t0 };
}

const summaryOf = (t0) => ({
  endpoint: 'GET /x',
  scenario: 'capacity',
  status: 'completed',
  startedAt: new Date(t0).toISOString(),
  requests: [],
  phases: [],
});

test('answers a second count only what was answered inside the held window, not the drain after it', () => {
  // 2 s of warm-up, 4 s held at 100/s, then an overloaded deployment letting out 300 queued
  // answers in the two seconds after the phase: not 100 + 300/4 = 175/s answered.
  const { dir, t0 } = levelDir([
    [100, 50],
    [100, 60],
    [100, 80],
    [100, 80],
    [100, 80],
    [100, 80],
    [0, 200],
    [0, 100],
  ]);
  try {
    const l = judgeLevel(summaryOf(t0), { rate: 100, warmupS: 2, holdS: 4, dir, slos: [parseSlo('errors<1%')] });
    expect(l.answeredPerS).toBe(80);
    expect(l.answeredPerS).toBeLessThanOrEqual(l.rate);
    // The drain still counts as answered (and, with histograms, in the latency the SLO judges).
    expect(l.answered).toBe(620);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
