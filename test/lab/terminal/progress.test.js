'use strict';

const { progressLine, clock } = require('../../../lab/terminal/progress');
// (The line's inputs, as the run's listener reads them from the records: lab/run/progress.js.)
const { snapshot } = require('../../../lab/run/progress');

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
