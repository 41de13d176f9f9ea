'use strict';

const { signalStages } = require('../../artillery/stages');

describe('signal stages', () => {
  test("load is seed 002's: 10 s to 10, 30 s to 50, 1 min to 250, 2 min to 500, 4 min to 1,000", () => {
    expect(signalStages('load').map((s) => [s.duration, s.target])).toEqual([
      [10, 10],
      [30, 50],
      [60, 250],
      [120, 500],
      [240, 1000],
    ]);
    expect(signalStages('load')[0].name).toBe('0 to 10 participants');
  });

  test('--scale shrinks durations (at least 1 s), --rate-scale the participants (at least 1), --duration the hold', () => {
    expect(signalStages('load', { scale: 0.05, rateScale: 0.02 }).map((s) => [s.duration, s.target])).toEqual([
      [1, 1],
      [2, 1],
      [3, 5],
      [6, 10],
      [12, 20],
    ]);
    const e = signalStages('endurance', { durationS: 30 });
    expect(e.map((s) => [s.duration, s.target, s.name])).toEqual([
      [60, 1000, '0 to 1000 participants'],
      [30, 1000, 'hold 1000 participants'],
    ]);
  });
});
