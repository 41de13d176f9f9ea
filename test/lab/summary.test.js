'use strict';

const { summarize, launchedPerPhase, judgeGenerator } = require('../../lab/summary');

const T = 1_700_000_000_000; // a whole second

describe('run summary', () => {
  test('arrivals per second are split between phases by time; edges go to the first and last phase', () => {
    const windows = [
      { start: T + 200, end: T + 2200 },
      { start: T + 2200, end: T + 4200 },
    ];
    const counters = {
      [`lab.arrivals.${T / 1000}`]: 10, // mostly before the first window's stamp
      [`lab.arrivals.${T / 1000 + 2}`]: 10, // split 20% / 80%
      [`lab.arrivals.${T / 1000 + 5}`]: 4, // after the end
    };
    const launched = launchedPerPhase(windows, [{ period: T, counters }]);
    expect(launched[0]).toBeCloseTo(12);
    expect(launched[1]).toBeCloseTo(12);
  });

  test('figures come from the final report; an interrupted run sums interval counters and has no percentiles', () => {
    const stats = (period, created, responses) => ({
      type: 'stats',
      stats: {
        period,
        firstMetricAt: period,
        lastMetricAt: period + 9000,
        counters: {
          'vusers.created': created,
          'vusers.completed': responses,
          'http.responses': responses,
          'http.codes.200': responses,
        },
      },
    });
    const base = {
      endpoint: 'ping',
      scenario: 'load',
      phases: [{ name: 'p', duration: 20, arrivalRate: 10 }],
      startedAt: new Date(T).toISOString(),
      events: [stats(T, 100, 90), stats(T + 10000, 100, 100)],
      generatorSamples: [],
    };
    const partial = summarize({ ...base, status: 'interrupted', report: null });
    expect(partial.scenariosLaunched).toBe(200);
    expect(partial.requestsCompleted).toBe(190);
    expect(partial.responseTimeMs).toBeNull();

    const report = {
      aggregate: {
        counters: {
          'vusers.created': 200,
          'vusers.completed': 190,
          'vusers.failed': 10,
          'http.responses': 190,
          'http.codes.200': 190,
          'errors.ETIMEDOUT': 10,
        },
        summaries: { 'http.response_time': { min: 1, median: 2, p95: 5, p99: 9, max: 12, mean: 2.5, count: 190 } },
        firstMetricAt: T,
        lastMetricAt: T + 19000,
      },
    };
    const full = summarize({ ...base, status: 'completed', report });
    expect(full.responseTimeMs).toMatchObject({ median: 2, p95: 5, p99: 9 });
    expect(full.errors).toEqual({ ETIMEDOUT: 10 });
    expect(full.meanResponseRate).toBe(10);
  });

  test('the generator is blamed only when it launched well under the asked rate', () => {
    const phase = (ratio, cpu = 95, durationS = 15) => ({
      name: 'spike',
      durationS,
      ratio,
      achievedRate: 650,
      targetRate: { mean: 1000 },
      generatorCpuPctMean: cpu,
      launched: 100,
    });
    expect(judgeGenerator([phase(0.65)], 'completed').saturated).toBe(true);
    expect(judgeGenerator([phase(0.65)], 'completed').verdict).toMatch(/generator set the limit/);
    expect(judgeGenerator([phase(0.98, 40)], 'completed')).toEqual({
      saturated: false,
      verdict: 'the load generator kept up with every phase',
    });
    expect(judgeGenerator([phase(0.98, 97)], 'completed').verdict).toMatch(/used 97% of a core in phase "spike"/);
    // Too short to judge: no blame, and it says so.
    expect(judgeGenerator([phase(0.5, 40, 2)], 'completed').verdict).toMatch(/too short to judge/);
  });
});
