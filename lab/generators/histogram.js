'use strict';

const hdr = require('hdr-histogram-js');

// Latencies in microseconds in an HdrHistogram (3 significant digits, 1 µs to 2 min), so a
// /ping answered in 0.6 ms reads 0.6 ms, not Artillery's whole 0 or 1 ms. Histograms of
// several workers or seconds merge exactly (`add`); percentiles are read from a merged
// histogram, never averaged.
const OPTIONS = { lowestDiscernibleValue: 1, highestTrackableValue: 120e6, numberOfSignificantValueDigits: 3 };

const create = () => hdr.build({ ...OPTIONS, useWebAssembly: false });

const toMs = (us) => Math.round(us) / 1000;

// Plain figures in ms. HdrHistogram reports a percentile as the highest value equivalent to
// its bucket, which can lie just above the largest recorded value: every percentile is
// capped at the max, so p99 <= max always holds.
function figures(h) {
  if (!h || h.totalCount === 0) return null;
  const max = h.maxValue;
  const p = (q) => toMs(Math.min(h.getValueAtPercentile(q), max));
  return {
    count: h.totalCount,
    min: toMs(h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : h.minNonZeroValue),
    mean: toMs(h.mean),
    stdev: toMs(h.stdDeviation),
    p50: p(50),
    p75: p(75),
    p90: p(90),
    p95: p(95),
    p99: p(99),
    max: toMs(max),
  };
}

const encode = (h) => (h.totalCount ? hdr.encodeIntoCompressedBase64(h) : null);

function decode(text) {
  return hdr.decodeFromCompressedBase64(text, 32, false);
}

// One histogram of many encoded ones (nulls skipped).
function merge(encoded) {
  const out = create();
  for (const text of encoded) if (text) out.add(decode(text));
  return out;
}

module.exports = { create, figures, encode, decode, merge, toMs };
