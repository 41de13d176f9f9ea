'use strict';

const { sweep, analyze, modelCurve } = require('../../../lab/analysis/black-box-model');

// A simulated closed-loop probe of an ideal service: what the sweep would measure.
function simulated({ kind, workers, delayMs, noiseMs = 2 }) {
  const probed = [];
  const probe = async (c) => {
    probed.push(c);
    const sat = kind === 'sync' && c > workers;
    const max = sat ? Math.ceil(c / workers) * delayMs : delayMs + noiseMs;
    const mean = sat ? (c * delayMs) / workers : delayMs + noiseMs / 2;
    const throughput = ((kind === 'sync' ? Math.min(c, workers) : c) * 1000) / delayMs;
    return {
      concurrency: c,
      completed: 10 * c,
      throughput,
      errors: {},
      latencyMs: { min: delayMs + 0.5, p50: delayMs + 1, mean, p95: max, max },
    };
  };
  // n requests at once: the first min(n, W) answer after one delay, the others wait.
  const burst = async (n) => ({
    count: n,
    errors: {},
    latenciesMs: Array.from({ length: n }, (_, i) =>
      kind === 'sync' ? (Math.floor(i / workers) + 1) * delayMs + noiseMs : delayMs + noiseMs,
    ),
  });
  return { probe, probed, burst };
}

describe('characterization from a concurrency sweep', () => {
  test.each([3, 5, 7, 15])('a synchronous service with %i workers is found exactly, by bisection', async (W) => {
    const s = simulated({ kind: 'sync', workers: W, delayMs: 900 });
    const v = analyze(await sweep(s.probe, { maxConcurrency: 32 }));
    expect(v.kind).toBe('sync');
    expect(v.workers).toBe(W);
    expect(v.delayMs).toBeCloseTo(900.5, 0);
    expect(v.littleWorkers).toBeCloseTo(W, 0);
    expect(v.explanation).toMatch(new RegExp(`Synchronous with ${W} workers`));
    // Bounded: doubling then bisection, not every level.
    expect(s.probed.length).toBeLessThanOrEqual(12);
  });

  test.each([3, 11, 15])('with bursts, the first wave counts %i workers', async (W) => {
    const s = simulated({ kind: 'sync', workers: W, delayMs: 200 });
    const sizes = [];
    const v = analyze(await sweep(s.probe, { maxConcurrency: 32, burst: s.burst, onWave: (w) => sizes.push(w.size) }));
    expect(v).toMatchObject({ kind: 'sync', workers: W, waves: [W, W, W], workersUncertainty: 0 });
    expect(sizes.every((n) => n > W)).toBe(true);
    expect(v.explanation).toMatch(
      new RegExp(`Synchronous with ${W} workers: of \\d+, \\d+, \\d+ requests sent at once`),
    );
  });

  test('a burst answered wholly in its first wave was too small, and is doubled', async () => {
    // Latency read as saturated too early (at 4) for 15 workers: the first burst of 8 is all first wave.
    const s = simulated({ kind: 'sync', workers: 15, delayMs: 200 });
    const sizes = [];
    const probe = async (c) => ({
      ...(await s.probe(c)),
      latencyMs: { min: 200, p50: 201, mean: 201, p95: c >= 4 ? 400 : 201, max: c >= 4 ? 400 : 201 },
    });
    const v = analyze(await sweep(probe, { maxConcurrency: 32, burst: s.burst, onWave: (w) => sizes.push(w.size) }));
    expect(sizes[0]).toBe(8);
    expect(sizes).toContain(16);
    expect(v.workers).toBe(15);
    expect(v.latencyWorkers).toBe(3);
  });

  // Seen in a full test run: a busy machine made the closed loop's latency rise for the
  // asynchronous box, and the verdict read "sync". Its bursts, answered whole in their first
  // wave up to the largest, say there is no worker limit.
  test('an asynchronous service whose closed loop looks saturated on a busy machine: its bursts say async', async () => {
    const s = simulated({ kind: 'async', delayMs: 200 });
    const probe = async (c) => ({
      ...(await s.probe(c)),
      latencyMs: { min: 200, p50: 201, mean: 201, p95: c >= 4 ? 400 : 201, max: c >= 4 ? 400 : 201 },
    });
    const v = analyze(await sweep(probe, { maxConcurrency: 8, burst: s.burst }));
    expect(v.kind).toBe('async');
    expect(v.workers).toBeNull();
    expect(v.explanation).toMatch(/requests sent at once answered after one delay .*a busy machine/);
  });

  // Seen in CI: the asynchronous box (210 ms) read as "sync" because its bursts had a few
  // late answers on a busy machine. Doubling the burst tells the two apart: the first wave
  // grows with it when nothing limits it, and stays at W when workers do.
  test('late answers in every burst: a first wave that grows with the burst says async', async () => {
    const s = simulated({ kind: 'async', delayMs: 200 });
    const probe = async (c) => ({
      ...(await s.probe(c)),
      latencyMs: { min: 200, p50: 201, mean: 201, p95: c >= 4 ? 400 : 201, max: c >= 4 ? 400 : 201 },
    });
    // Three answers of every burst stalled past 1.5 delays.
    const burst = async (n) => ({
      count: n,
      errors: {},
      latenciesMs: Array.from({ length: n }, (_, i) => (i < 3 ? 350 : 202)),
    });
    const sizes = [];
    const v = analyze(await sweep(probe, { maxConcurrency: 8, burst, onWave: (w) => sizes.push(w.size) }));
    expect(sizes).toEqual([8, 16, 8]);
    expect(v.kind).toBe('async');
    expect(v.explanation).toMatch(
      /of 8 and 8 requests sent at once 5 and 5 answered .* of 16 sent at once, 13: the first wave grew/,
    );
  });

  test("noise that makes a synchronous service's first-wave answers late: the largest wave is W, not a growth", async () => {
    const W = 6;
    const s = simulated({ kind: 'sync', workers: W, delayMs: 200 });
    let k = 0;
    // The first and last bursts lose 2 and 1 of their first wave to a stall; the doubled one none.
    const lost = [2, 0, 1];
    const burst = async (n) => {
      const b = await s.burst(n);
      const drop = lost[k++] ?? 0;
      b.latenciesMs = b.latenciesMs.map((ms, i) => (i < drop ? 1.6 * 200 : ms));
      return b;
    };
    const v = analyze(await sweep(s.probe, { maxConcurrency: 32, burst }));
    expect(v).toMatchObject({ kind: 'sync', workers: W, waves: [W - 2, W, W - 1], workersUncertainty: 2 });
  });

  // Seen in CI: three bursts each read 9 of 10 workers, every one losing an answer to a stall.
  // Under the closed loop's last flat level, more bursts are sent (3 at most), the largest
  // reading stands; a closed loop that agrees sends none.
  test('every burst one short of the closed loop: more bursts, up to three, until one reads it', async () => {
    const W = 10;
    const s = simulated({ kind: 'sync', workers: W, delayMs: 200 });
    const withStalls = (lost) => {
      let k = 0;
      return async (n) => {
        const b = await s.burst(n);
        const drop = lost[k++] ?? 1;
        b.latenciesMs = b.latenciesMs.map((ms, i) => (i < drop ? 1.6 * 200 : ms));
        return b;
      };
    };
    const found = analyze(await sweep(s.probe, { maxConcurrency: 32, burst: withStalls([1, 1, 1, 1, 0]) }));
    expect(found).toMatchObject({ kind: 'sync', workers: W, latencyWorkers: W, waves: [9, 9, 9, 9, 10] });
    // Stalled every time: three more at most, and the reading said with its spread.
    const stalled = analyze(await sweep(s.probe, { maxConcurrency: 32, burst: withStalls([]) }));
    expect(stalled.waves).toEqual([9, 9, 9, 9, 9, 9]);
    expect(stalled.workers).toBe(9);
  });

  test('an asynchronous service keeps latency flat up to the bound', async () => {
    const s = simulated({ kind: 'async', delayMs: 1100 });
    const v = analyze(await sweep(s.probe, { maxConcurrency: 32 }));
    expect(v.kind).toBe('async');
    expect(v.workers).toBeNull();
    expect(v.delayMs).toBeCloseTo(1100.5, 0);
    expect(s.probed).toEqual([1, 2, 4, 8, 16, 32]);
    expect(v.explanation).toMatch(/more than 32 workers would look the same/);
  });

  test('errors stop the sweep and make it inconclusive', async () => {
    const probe = async (c) => ({
      concurrency: c,
      completed: c < 4 ? 10 : 0,
      throughput: 1,
      errors: c < 4 ? {} : { ECONNRESET: 3 },
      latencyMs: { min: 100, p50: 100, mean: 100, p95: 100, max: 100 },
    });
    const v = analyze(await sweep(probe, { maxConcurrency: 32 }));
    expect(v.kind).toBe('inconclusive');
    expect(v.explanation).toMatch(/errors at concurrency 4/);
  });

  test('the model curves follow the verdict', () => {
    const sync = modelCurve({ kind: 'sync', workers: 3, delayMs: 1000 }, 6);
    expect(sync.map((p) => p.throughput)).toEqual([1, 2, 3, 3, 3, 3]);
    expect(sync.map((p) => p.latencyMs)).toEqual([1000, 1000, 1000, 1333.3333333333333, 1666.6666666666667, 2000]);
    expect(modelCurve({ kind: 'async', delayMs: 500 }, 2).map((p) => p.throughput)).toEqual([2, 4]);
  });
});

test("clients out of step (latency rising late): the plateau's throughput decides, with the uncertainty said", () => {
  // 14 workers at 200 ms, but latency read as flat up to 16 (a busy machine).
  const levels = [1, 2, 4, 8, 16, 17, 32].map((c) => {
    const sat = c > 16;
    return {
      concurrency: c,
      completed: 100,
      errors: {},
      // Each request holds a worker ~210 ms (the median), 200 ms at the least.
      throughput: (Math.min(c, 14) * 1000) / 210,
      latencyMs: { min: 200, p50: sat ? 400 : 210, mean: 210, p95: 230, max: sat ? 400 : 300 },
    };
  });
  const { analyze } = require('../../../lab/analysis/black-box-model');
  const v = analyze({ levels, lastFlat: 16, firstSaturated: 17, maxConcurrency: 32 });
  expect(v).toMatchObject({ kind: 'sync', workers: 14, latencyWorkers: 16, workersUncertainty: 2 });
  expect(v.explanation).toMatch(/Little's law/);
});
