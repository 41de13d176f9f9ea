'use strict';

const { create, encode, decode, figures, merge } = require('../../../lab/measure/histogram');

// figures() reads a histogram in two passes with the library's own arithmetic: it must give
// exactly what the library's getValueAtPercentile, mean and stdDeviation give (capped at the
// max, rounded to the µs, as before), on histograms of every shape the lab records.
function libraryFigures(h) {
  const max = h.maxValue;
  const ms = (us) => Math.round(us) / 1000;
  const p = (q) => ms(Math.min(h.getValueAtPercentile(q), max));
  return {
    count: h.totalCount,
    min: ms(h.minNonZeroValue),
    mean: ms(h.mean),
    stdev: ms(h.stdDeviation),
    p50: p(50),
    p75: p(75),
    p90: p(90),
    p95: p(95),
    p99: p(99),
    max: ms(max),
  };
}

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  let x = seed >>> 0;
  return () => (x = (Math.imul(x, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test.each([1, 2, 3, 4, 5, 6, 7, 8])('random histogram %i: the same figures as the library', (seed) => {
  const r = rng(seed);
  const h = create();
  const n = 1 + Math.floor(r() * 20000);
  const shape = seed % 4;
  for (let i = 0; i < n; i++) {
    const u = r();
    const v =
      shape === 0
        ? 200 + u * 800 // sub-millisecond, flat
        : shape === 1
          ? Math.exp(u * 16) // log-spread, 1 µs to ~9 s
          : shape === 2
            ? u < 0.99
              ? 500 + u * 100
              : 5e6 + u * 1e6 // a far tail
            : 1 + Math.floor(u * 3); // a few values, many ties
    h.recordValue(Math.max(1, Math.round(v)));
  }
  expect(figures(h)).toEqual(libraryFigures(h));
  // After the trip every record makes (encoded, decoded, merged).
  const back = merge([encode(h), encode(h)]);
  expect(figures(back)).toEqual(libraryFigures(back));
  expect(figures(decode(encode(h)))).toEqual(libraryFigures(decode(encode(h))));
});

test('one value, and an empty histogram', () => {
  const h = create();
  expect(figures(h)).toBeNull();
  h.recordValue(1234);
  expect(figures(h)).toEqual(libraryFigures(h));
  expect(figures(h).p99).toBeLessThanOrEqual(figures(h).max);
});
