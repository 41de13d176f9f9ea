'use strict';

const { progressLine, totalsFrom, clock } = require('../../lab/progress');

describe('progress line', () => {
  const phases = [
    { name: 'base 100/s', duration: 10, arrivalRate: 100 },
    { name: 'ramp', duration: 10, arrivalRate: 0, rampTo: 50 },
  ];
  test('shows elapsed/total, the phase, its current rate, the counts and the last p95', () => {
    const intervals = [
      {
        counters: { 'vusers.created': 100, 'vusers.completed': 80, 'vusers.failed': 5, 'errors.ETIMEDOUT': 5 },
        summaries: { 'http.response_time': { p95: 12.4 } },
      },
    ];
    const line = progressLine({
      elapsedS: 15,
      totalS: 20,
      phases,
      totals: totalsFrom(intervals),
      lastInterval: intervals[0],
    });
    expect(line).toBe(
      '[0:15 / 0:20] | phase 2/2 ramp | rate 25/s | done 80 | pending 15 | errors 5 | p95 12 ms (last 10 s)',
    );
    expect(progressLine({ elapsedS: 25, totalS: 20, phases, totals: totalsFrom([]) })).toMatch(/finishing/);
    expect(clock(3725)).toBe('1:02:05');
  });
});
