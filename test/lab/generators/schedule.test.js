'use strict';

const { arrivals, totalArrivals, peakRate } = require('../../../lab/generators/schedule');

describe('open-loop schedule', () => {
  const phases = [
    { name: 'constant', duration: 2, arrivalRate: 5 },
    { name: 'ramp', duration: 10, arrivalRate: 0, rampTo: 10 },
    { name: 'count', duration: 2, arrivalCount: 3 },
  ];

  test('as many arrivals as each phase asks, in order, inside their phases', () => {
    const all = [...arrivals(phases)];
    expect(all).toHaveLength(totalArrivals(phases));
    expect(all.filter((a) => a.phase === 0)).toHaveLength(10);
    expect(all.filter((a) => a.phase === 1)).toHaveLength(50);
    expect(all.filter((a) => a.phase === 2).map((a) => Math.round(a.at))).toEqual([12000, 12667, 13333]);
    for (let i = 1; i < all.length; i++) expect(all[i].at).toBeGreaterThanOrEqual(all[i - 1].at);
    // A linear ramp: a quarter of its arrivals in its first half.
    const ramp = all.filter((a) => a.phase === 1);
    expect(ramp.filter((a) => a.at < 2000 + 5000)).toHaveLength(13);
    expect(peakRate(phases)).toBe(10);
  });

  test('shards split the schedule with no overlap and no gap', () => {
    const whole = [...arrivals(phases)].map((a) => a.at);
    const parts = [0, 1, 2].flatMap((shard) => [...arrivals(phases, { shard, of: 3 })].map((a) => a.at));
    expect(parts.sort((a, b) => a - b)).toEqual(whole);
  });
});
