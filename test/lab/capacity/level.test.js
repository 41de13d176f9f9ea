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
    // 80 of every 100 answered: the level did not hold, whatever its SLOs say, and says why.
    expect(l.thresholds.find((t) => t.ok === false)).toMatchObject({
      text: 'answered>=95%',
      value: 80,
      unit: '%',
      launched: 400,
      ended: 320,
    });
    expect(l.ok).toBe(false);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

// A level's generator judged by the generator's own rule (lab/generators/judge.js): a phase
// short by more arrivals than its boundaries can misplace, never by one.
test("the generator's limit: a phase short by more than its boundaries misplace, not by one or two arrivals", () => {
  const { dir, t0 } = levelDir([
    [10, 10],
    [10, 10],
  ]);
  const o = { dir, warmupS: 0, holdS: 2, rate: 10, slos: [parseSlo('p99<200')] };
  const phase = (targetMean, durationS, launched) => ({
    targetRate: { mean: targetMean },
    durationS,
    launched,
    achievedRate: Math.round((launched / durationS) * 10) / 10,
    ratio: launched / (targetMean * durationS),
    generatorCpuPctMean: 3.3,
  });
  const ramp = [phase(15, 5, 74), phase(15, 3, 44), phase(10, 105, 1050)];
  expect(judgeLevel({ ...summaryOf(t0), phases: ramp }, o).generatorBound).toBeNull();
  // Short by 10 arrivals in the same ramp: the generator's limit, said with its figures.
  const short = [phase(15, 5, 65), ramp[1], ramp[2]];
  expect(judgeLevel({ ...summaryOf(t0), phases: short }, o).generatorBound).toBe(
    'the generator launched 13/s of the 15/s asked (3.3% of a core)',
  );
  // One constant phase (a capacity level) short by 2 arrivals: its limit too (no boundary).
  expect(judgeLevel({ ...summaryOf(t0), phases: [phase(20, 10, 196)] }, o).generatorBound).toMatch(
    /^the generator launched 19.6\/s of the 20\/s asked/,
  );
});

// A level kept up when what ended in its held window (answers and failures) is what was
// launched there, less what the window's edges misplace: 5%, at least 3 requests.
test('a level keeps up within what its window edges misplace, and not beyond: a share short breaks it', () => {
  const { keptUp, heldSeconds } = require('../../../lab/capacity/level');
  // Seconds as 'launched/completed' (and failed, '/failed'), the held window their first `heldS`.
  const kept = (seconds, heldS = 2) =>
    keptUp(
      heldSeconds(
        seconds.split(' ').map((x, i) => {
          const [launched, completed, failed = 0] = x.split('/').map(Number);
          return { type: 'second', at: i * 1000, launched, completed, errors: failed ? { ETIMEDOUT: failed } : {} };
        }),
        0,
        heldS,
      ),
    );
  // 200 launched, 190 ended: the edge's 5%, held; 189, not.
  expect(kept('100/95 100/95')).toMatchObject({ ok: true, value: 95 });
  expect(kept('100/95 100/94')).toMatchObject({ ok: false, value: 94.5 });
  // Failures ended too: a request that failed is not a queue (the errors SLO judges it).
  expect(kept('100/90/5 100/90/5').ok).toBe(true);
  // At a low rate the slack is 3 requests: 4 launched and 1 ended is in it; 8 and 1 is not.
  expect(kept('2/1 2/0').ok).toBe(true);
  expect(kept('4/0 4/1').ok).toBe(false);
  // Only the held window counts: the drain after it (answers, no launches) is not kept up.
  expect(kept('100/50 100/50 0/200').ok).toBe(false);
  // Nothing launched: not this rule's (the generator's limit says it).
  expect(kept('0/0', 1)).toMatchObject({ ok: true, value: null });
});
