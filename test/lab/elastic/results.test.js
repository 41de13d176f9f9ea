'use strict';

const { create, encode } = require('../../../lab/measure/histogram');
const {
  spikesOf,
  spikeResults,
  autoscaleResults,
  rolloutResults,
  elasticFindings,
} = require('../../../lab/elastic/results');

const T0 = 1_000_000;
// A second of the generator's records: its latencies (ms) as one histogram, codes and errors.
function second(i, { ms = 10, n = 10, codes = { 200: n }, errors = {}, upstreamFails = null } = {}) {
  const h = create();
  for (let k = 0; k < n; k++) h.recordValue(Math.round(ms * 1000));
  return {
    type: 'second',
    at: T0 + i * 1000,
    launched: n,
    completed: n,
    codes,
    errors,
    hist: { latency: encode(h) },
    ...(upstreamFails ? { upstreamFails } : {}),
  };
}
const EXPECT = null;

describe('spikes and when they were absorbed', () => {
  test("the course's spikes: two, each a phase at ten times the base", () => {
    const phases = [
      { duration: 45, arrivalRate: 100 },
      { duration: 15, arrivalRate: 1000 },
      { duration: 45, arrivalRate: 100 },
      { duration: 15, arrivalRate: 1000 },
      { duration: 45, arrivalRate: 100 },
    ];
    expect(spikesOf(phases)).toEqual([
      { startS: 45, endS: 60, fromRate: 100, toRate: 1000 },
      { startS: 105, endS: 120, fromRate: 100, toRate: 1000 },
    ]);
    // A ramp has none.
    expect(spikesOf([{ duration: 60, arrivalRate: 0, rampTo: 100 }])).toEqual([]);
  });

  test('absorbed from the first second after which p99 held under the SLO with no failure for 5 s', () => {
    const phases = [
      { duration: 5, arrivalRate: 10 },
      { duration: 5, arrivalRate: 100 },
      { duration: 20, arrivalRate: 10 },
    ];
    const secs = [];
    for (let i = 0; i < 30; i++) {
      // Slow from 5 s to 11 s, two failed requests at 8 s, fast again from 12 s.
      if (i >= 5 && i < 12) secs.push(second(i, { ms: 900, codes: i === 8 ? { 200: 8, 502: 2 } : { 200: 10 } }));
      else secs.push(second(i));
    }
    const [s] = spikeResults({ secs, phases, expect: EXPECT, sloMs: 500, t0: T0, endMs: T0 + 30000 });
    expect(s).toMatchObject({ startS: 5, recoveredS: 7, failed: 2 });
  });

  test('never absorbed within the run: null, every failure counted', () => {
    const phases = [
      { duration: 2, arrivalRate: 10 },
      { duration: 8, arrivalRate: 100 },
    ];
    const secs = Array.from({ length: 10 }, (_, i) =>
      second(i, { ms: i >= 2 ? 2000 : 5, errors: i >= 2 ? { ETIMEDOUT: 1 } : {} }),
    );
    const [s] = spikeResults({ secs, phases, expect: EXPECT, sloMs: 500, t0: T0, endMs: T0 + 10000 });
    expect(s).toMatchObject({ recoveredS: null, failed: 8 });
  });
});

describe('the autoscaled replicas over the load', () => {
  const elastic = {
    t0: T0,
    initial: ['replica-1'],
    decisions: [{ at: T0 + 3000, t: 3, current: 1, desired: 2 }],
    changes: [
      { added: { name: 'replica-2', port: 8091, startedAt: T0 + 3000, readyAt: T0 + 4000, joinedAt: T0 + 5000 } },
      {
        removed: {
          name: 'replica-2',
          port: 8091,
          leftAt: T0 + 8000,
          sigtermAt: T0 + 8300,
          exitedAt: T0 + 9000,
          drainedAt: T0 + 8300,
          killed: false,
          exitCode: 0,
        },
      },
    ],
    errors: [],
  };
  const e = { min: 1, max: 4, metric: 'cpu', unit: '%', target: 50, rule: {} };

  test('each second its replicas and those in the entry; the replica-seconds against MIN and MAX held', () => {
    const secs = Array.from({ length: 10 }, (_, i) => second(i));
    const a = autoscaleResults(e, elastic, {
      secs,
      phases: [{ duration: 10, arrivalRate: 10 }],
      expect: EXPECT,
      sloMs: 500,
      endMs: T0 + 10000,
    });
    expect(a.timeline.map((x) => x.replicas).join('')).toBe('1112222221');
    expect(a.timeline.map((x) => x.ready).join('')).toBe('1111122211');
    // replica-1: 10 s; replica-2: from 3 s to 9 s.
    expect(a.replicaSeconds).toBe(16);
    expect(a.fixed).toEqual({ min: 10, max: 40 });
    expect(a.decisions).toEqual([{ t: 3, current: 1, desired: 2 }]);
  });
});

describe("a rollout's failed requests, by cause", () => {
  const elastic = {
    t0: T0,
    initial: ['replica-1', 'replica-2'],
    changes: [
      { added: { name: 'replica-3', port: 8092, startedAt: T0 + 2000, joinedAt: T0 + 3000 } },
      {
        removed: {
          name: 'replica-1',
          port: 8090,
          leftAt: T0 + 3000,
          drainedAt: T0 + 3300,
          sigtermAt: T0 + 3300,
          exitedAt: T0 + 3400,
          connectionsLeft: 4,
          killed: false,
          exitCode: 0,
        },
      },
    ],
    rollout: {
      startedAt: T0 + 2000,
      endedAt: T0 + 4000,
      surge: 1,
      unavailable: 0,
      replaced: [{ old: 'replica-1', new: 'replica-3' }],
    },
  };
  const names = { '127.0.0.1:8090': 'replica-1', '127.0.0.1:8091': 'replica-2' };

  test("5xx naming the stopping replica are its drops; the entry's other 502s, refused and reset apart", () => {
    const secs = [
      second(2),
      second(3, { codes: { 200: 5, 502: 4 }, errors: { ECONNREFUSED: 1 }, upstreamFails: { '127.0.0.1:8090': 3 } }),
      second(4, { errors: { ECONNRESET: 2 } }),
      second(9, { errors: { ETIMEDOUT: 5 } }),
    ];
    const r = rolloutResults(elastic, { secs, expect: EXPECT, names });
    expect(r.failed).toBe(7);
    expect(r.causes).toEqual({ dropped: { 'replica-1': 3 }, gateway: 1, refused: 1, reset: 2, other: {} });
    expect(r.replaced).toEqual([
      { old: 'replica-1', new: 'replica-3', drainedS: 0.3, connectionsLeft: 4, exit: 'exited cleanly', stopS: 0.1 },
    ]);
    const f = elasticFindings({ rollout: r });
    expect(f[0].text).toBe(
      'the rollout dropped 7 request(s): replica-1 (3) exited with requests in flight; handle SIGTERM by closing the server and waiting for them; 1 answered 502/504 by the entry with no replica to send to; 1 refused connections; 2 reset connections',
    );
  });

  test("a 5xx the entry gave after trying the stopping replica and another is the stopping one's drop, counted once", () => {
    const secs = [
      second(3, {
        codes: { 200: 5, 502: 3 },
        upstreamFails: { '127.0.0.1:8090, 127.0.0.1:8091': 2, '127.0.0.1:8091, 127.0.0.1:8090': 1 },
      }),
    ];
    const r = rolloutResults(elastic, { secs, expect: EXPECT, names });
    expect(r.causes).toEqual({ dropped: { 'replica-1': 3 }, gateway: 0, refused: 0, reset: 0, other: {} });
    expect(r.failed).toBe(3);
  });

  test('none failed: said so', () => {
    const r = rolloutResults(elastic, { secs: [second(2), second(3)], expect: EXPECT, names });
    expect(elasticFindings({ rollout: r }).map((f) => f.text)).toEqual([
      'the rollout dropped nothing (1 replica(s) replaced in 2 s)',
    ]);
  });

  test('one that did not finish is never called clean; its drops are still named', () => {
    expect(elasticFindings({ rollout: { error: 'the load ended before the rollout began' } })).toEqual([
      expect.objectContaining({
        id: 'rollout-failed',
        text: 'the rollout did not finish: the load ended before the rollout began',
      }),
    ]);
    const r = rolloutResults(elastic, { secs: [second(2), second(3)], expect: EXPECT, names });
    const ids = elasticFindings({ rollout: { ...r, error: 'reloading nginx failed' } }).map((f) => f.id);
    expect(ids).toEqual(['rollout-failed']);
  });
});
