'use strict';

const { summarize, launchedPerPhase, outages } = require('../../../lab/results/summary');
const { recordsOfEvent, doneRecord } = require('../../../lab/generators/artillery-events');

// Every record of an Artillery run from its plugin's events and its report (or none: cut short).
const recordsOf = (events, report, interrupted = false) => [
  { type: 'start', generator: 'artillery' },
  ...events.flatMap(recordsOfEvent),
  doneRecord(report, interrupted),
];
const { create, encode } = require('../../../lab/measure/histogram');
const { gather } = require('../../../lab/measure/records');

const T = 1_700_000_000_000; // a whole second

// A second of the lab's own engines, with histograms of the given latencies (ms).
function second(at, launched, latencies, lagMs = 0.2) {
  const lat = create();
  const lag = create();
  for (const ms of latencies) lat.recordValue(Math.round(ms * 1000));
  for (let i = 0; i < launched; i++) lag.recordValue(Math.round(lagMs * 1000));
  return {
    type: 'second',
    at,
    launched,
    completed: latencies.length,
    codes: latencies.length ? { 200: latencies.length } : {},
    errors: {},
    hist: { latency: encode(lat), fromSend: encode(lat), lag: encode(lag) },
  };
}

describe('run summary from neutral records', () => {
  test('arrivals per second are split between phases by time; edges go to the first and last phase', () => {
    const windows = [
      { start: T + 200, end: T + 2200 },
      { start: T + 2200, end: T + 4200 },
    ];
    const secs = [
      { at: T, launched: 10 }, // mostly before the first window's stamp
      { at: T + 2000, launched: 10 }, // split 20% / 80%
      { at: T + 5000, launched: 4 }, // after the end
    ];
    const launched = launchedPerPhase(windows, secs);
    expect(launched[0]).toBeCloseTo(12);
    expect(launched[1]).toBeCloseTo(12);
  });

  const base = {
    endpoint: 'ping',
    scenario: 'load',
    phases: [{ name: 'p', duration: 20, arrivalRate: 10 }],
    startedAt: new Date(T).toISOString(),
    generatorSamples: [],
  };

  test('Artillery: figures from its final report (capped at max); cut short, counts only', () => {
    const stats = (period, created, responses) => ({
      type: 'stats',
      stats: {
        period,
        counters: {
          [`lab.arrivals.${period / 1000}`]: created,
          [`lab.sent.${period / 1000}`]: created,
          [`lab.responses.${period / 1000}`]: responses,
          'http.codes.200': responses,
        },
      },
    });
    const events = [stats(T, 100, 90), stats(T + 10000, 100, 100)];
    const partial = summarize({ ...base, status: 'interrupted', records: recordsOf(events, null, true) });
    expect(partial.scenariosLaunched).toBe(200);
    expect(partial.requestsCompleted).toBe(190);
    expect(partial.responseTimeMs).toBeNull();

    const report = {
      aggregate: {
        counters: {
          'vusers.created': 200,
          'vusers.completed': 190,
          'vusers.failed': 10,
          'http.requests': 200,
          'http.responses': 190,
          'http.codes.200': 190,
          'errors.ETIMEDOUT': 10,
        },
        // Artillery's sketch: p99 above max, as seen on /bbox2.
        summaries: { 'http.response_time': { min: 1, median: 2, p95: 5, p99: 13, max: 12, mean: 2.5, count: 190 } },
      },
    };
    const full = summarize({ ...base, status: 'completed', records: recordsOf(events, report) });
    expect(full.responseTimeMs).toMatchObject({ median: 2, p95: 5, p99: 12, max: 12 });
    expect(full.errors).toEqual({ ETIMEDOUT: 10 });
    expect(full.scenariosCompleted).toBe(190);
    expect(full.generator.name).toBe('artillery');
  });

  test('the lab engines: percentiles from the merged histograms, never above the max', () => {
    const records = [
      { type: 'start', generator: 'fast', workers: 1 },
      { type: 'phase', index: 0, name: 'p', at: T },
      ...Array.from({ length: 20 }, (_, i) => second(T + i * 1000, 10, Array(10).fill(i === 19 ? 100 : 1))),
      { type: 'done', at: T + 20000, cpuS: 0.1 },
    ];
    const s = summarize({ ...base, status: 'completed', records });
    expect(s.scenariosLaunched).toBe(200);
    expect(s.responseTimeMs.p50).toBeCloseTo(1, 2);
    expect(s.responseTimeMs.max).toBeCloseTo(100, 0);
    expect(s.responseTimeMs.p95).toBeCloseTo(1, 2);
    expect(s.responseTimeMs.p99).toBeCloseTo(100, 0);
    expect(s.responseTimeMs.p99).toBeLessThanOrEqual(s.responseTimeMs.max);
    expect(s.generator.cpuMsPerRequest).toBe(0.5);
    expect(s.phases[0].achievedRate).toBe(10);
    expect(s.peakLaunchedPerS).toBe(10);
    expect(s.saturation.saturated).toBe(false);
    // The records gathered once by the caller (lab/run/summary.js) make the same summary.
    expect(summarize({ ...base, status: 'completed', gathered: gather(records) })).toEqual(s);
  });

  test('a closed loop stopped by its request count: its rate over the exact time it ran, not whole seconds or the nominal phase', () => {
    const records = [
      { type: 'start', generator: 'closed', workers: 1, at: T },
      { type: 'phase', index: 0, name: 'closed loop', at: T },
      second(T, 1200, Array(1000).fill(200)),
      second(T + 1000, 1000, Array(1000).fill(200)),
      second(T + 2000, 0, Array(200).fill(200)),
      { type: 'done', at: T + 2200, cpuS: 0.1 },
    ];
    const s = summarize({
      ...base,
      phases: [{ name: 'closed loop', duration: 120 }],
      generator: { name: 'closed', loop: 'closed', workers: 1 },
      status: 'completed',
      records,
    });
    expect(s.durationS).toBe(2.2);
    expect(s.meanResponseRate).toBe(1000); // 2,200 in 2.2 s, where whole seconds say 733.3
    expect(s.phases[0].durationS).toBe(2.2);
    expect(s.phases[0].achievedRate).toBe(1000);
  });

  test('a send lag over 5 ms at p99 flags the phase, even at the asked rate', () => {
    const records = [
      { type: 'phase', index: 0, name: 'p', at: T },
      ...Array.from({ length: 20 }, (_, i) => second(T + i * 1000, 10, Array(10).fill(1), 9)),
    ];
    const s = summarize({ ...base, status: 'completed', records, generator: { name: 'fast', loop: 'open' } });
    expect(s.phases[0].sendLagP99Ms).toBeGreaterThan(5);
    expect(s.saturation.saturated).toBe(true);
    expect(s.saturation.verdict).toMatch(/send lag/);
  });

  test('TLS: the share resumed over every new connection, and over those that offered a session', () => {
    const tlsSecond = (at, handshakes, offered, resumed) => ({
      ...second(at, handshakes, Array(handshakes).fill(1)),
      tls: { handshakes, offered, resumed, protocols: { h2: handshakes } },
    });
    // The first second's connections opened before any ticket came: none could resume.
    const records = [
      { type: 'phase', index: 0, name: 'p', at: T },
      tlsSecond(T, 20, 0, 0),
      tlsSecond(T + 1000, 20, 20, 19),
    ];
    const s = summarize({ ...base, status: 'completed', records });
    expect(s.tls).toMatchObject({ protocol: 'h2', handshakes: 40, offered: 20, resumed: 19 });
    expect(s.tls.resumedShare).toBe(0.475);
    expect(s.tls.resumedOfOffered).toBe(0.95);
    // Resumption off: none offered, no share of them.
    const off = summarize({ ...base, status: 'completed', records: [records[0], tlsSecond(T, 20, 0, 0)] });
    expect(off.tls).toMatchObject({ offered: 0, resumedShare: 0, resumedOfOffered: null });
  });

});

describe('outages: where requests failed', () => {
  const sec = (i, errors) => ({ type: 'second', at: T + i * 1000, launched: 10, completed: 10, errors });
  test('seconds with errors, joined across gaps under 5 s, each with its span and count', () => {
    const records = [
      sec(0, {}),
      sec(10, { ETIMEDOUT: 2 }),
      sec(12, { ECONNREFUSED: 5 }),
      sec(13, {}),
      sec(30, { ECONNRESET: 1 }),
    ];
    expect(outages(records, T)).toEqual([
      { fromS: 10, toS: 13, seconds: 3, failed: 7 },
      { fromS: 30, toS: 31, seconds: 1, failed: 1 },
    ]);
    expect(outages([sec(0, {}), sec(1, {})], T)).toEqual([]);
  });
});
