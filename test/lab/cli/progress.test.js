'use strict';

const { progressLine, snapshot, clock } = require('../../../lab/cli/progress');

describe('progress line', () => {
  const phases = [
    { name: 'base 100/s', duration: 10, arrivalRate: 100 },
    { name: 'ramp', duration: 10, arrivalRate: 0, rampTo: 50 },
  ];
  const records = [
    {
      type: 'second',
      at: 1000,
      launched: 60,
      completed: 50,
      codes: {},
      errors: {},
      latencyMs: { count: 50, p99: 9.87 },
    },
    { type: 'second', at: 2000, launched: 40, completed: 30, codes: {}, errors: { ETIMEDOUT: 5 }, latencyMs: null },
  ];

  test('shows elapsed/total, the phase, its current rate, the counts and the last p99', () => {
    const line = progressLine({ elapsedS: 15, totalS: 20, phases, ...snapshot(records) });
    expect(line).toBe(
      '[0:15 / 0:20] | phase 2/2 ramp | rate 25/s | sent 100 | done 80 | pending 15 | errors 5 | p99 9.87 ms',
    );
    expect(progressLine({ elapsedS: 25, totalS: 20, phases, ...snapshot([]) })).toMatch(/finishing/);
    expect(progressLine({ elapsedS: 5, totalS: 20, phases, closed: true, ...snapshot([]) })).toMatch(/closed loop/);
    expect(clock(3725)).toBe('1:02:05');
  });

  test('a signaling run counts participants: connected now, joined so far, connect p99', () => {
    const signal = [
      { ...records[0], signal: { active: 48 } },
      { ...records[1], signal: { active: 70 } },
    ];
    const line = progressLine({
      elapsedS: 5,
      totalS: 20,
      phases,
      closed: true,
      participants: true,
      ...snapshot(signal),
    });
    expect(line).toBe(
      '[0:05 / 0:20] | phase 1/2 base 100/s | closed loop | connected 70 | joined 80 | errors 5 | connect p99 9.87 ms',
    );
  });

  test('a closed loop bounded by a request count shows how many of them were sent, not a total time', () => {
    const closed = [{ name: 'closed loop, 10 connection(s)', duration: 120 }];
    const line = progressLine({
      elapsedS: 3,
      totalS: 120,
      phases: closed,
      closed: true,
      requests: 500,
      ...snapshot(records),
    });
    expect(line).toBe(
      '[0:03] | phase 1/1 closed loop, 10 connection(s) | closed loop | sent 100 of 500 | done 80 | pending 15 | errors 5 | p99 9.87 ms',
    );
    const all = progressLine({
      elapsedS: 3,
      totalS: 120,
      phases: closed,
      closed: true,
      requests: 100,
      ...snapshot(records),
    });
    expect(all).toMatch(/\| finishing \| sent 100 of 100 \|/);
  });

  test('an interval known only as a whole (Artillery) adds its errors', () => {
    const s = snapshot([
      ...records,
      { type: 'interval', at: 0, durationMs: 10000, codes: {}, errors: { ECONNRESET: 2 } },
    ]);
    expect(s.totals.failed).toBe(7);
  });
});

// A line read [0:17 / 0:12] while finishing, and a distributed run's clock ran while its
// load nodes were still starting.
describe('the progress clock', () => {
  const { createProgress } = require('../../../lab/cli/progress');
  const phases = [{ name: 'constant 10/s', duration: 12, arrivalRate: 10 }];
  test('past the plan, the clock stops at its length and the wait is shown apart', () => {
    expect(progressLine({ elapsedS: 17, totalS: 12, phases, ...snapshot([]) })).toMatch(
      /^\[0:12 \/ 0:12 \+0:05\] \| .*finishing/,
    );
    expect(progressLine({ elapsedS: 12.4, totalS: 12, phases, ...snapshot([]) })).toMatch(/^\[0:12 \/ 0:12\] /);
  });
  test('before the first phase began, it says what it waits for; then it counts from the phase', () => {
    const lines = [];
    const stream = { isTTY: false, write: (l) => lines.push(l) };
    const p = createProgress({ phases, totalS: 12, stream });
    p.starting('starting load nodes: 1 of 2 ready');
    p.stop();
    expect(lines[0]).toBe('[0:00 / 0:12] | starting load nodes: 1 of 2 ready\n');
    const q = createProgress({ phases, totalS: 12, stream });
    q.onRecord({ type: 'start', at: Date.now() - 60000 });
    q.onRecord({ type: 'phase', index: 0, name: 'constant 10/s', at: Date.now() - 3000 });
    q.stop();
    expect(lines[1]).toMatch(/^\[0:03 \/ 0:12\] \| phase 1\/1 constant 10\/s/);
  });
});
