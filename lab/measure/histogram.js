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
//
// Read in two passes over the buckets, with the library's own arithmetic (its
// getValueAtPercentile, mean and stdDeviation walk the whole bucket array once per figure,
// through an iterator of objects: about 18 ms for one histogram, which made every
// summary of a long run, and the live dashboard's each second, slow). The same bucket
// order, the same rounding of the count at a percentile: the same figures, as
// test/lab/measure/histogram.test.js checks against the library on random histograms.
const QS = [50, 75, 90, 95, 99];

function figures(h) {
  if (!h || h.totalCount === 0) return null;
  const max = h.maxValue;
  const total = h.totalCount;
  const wanted = QS.map((q) => {
    const fp = (q / 100) * total;
    return Math.max(Math.ceil(fp - ulp(fp)), 1);
  });
  const at = QS.map(() => null);
  const last = Math.min(h.countsArrayLength - 1, h.countsArrayIndex(max));
  const meds = [];
  const counts = [];
  let sum = 0;
  let cum = 0;
  let next = 0;
  for (let i = 0; i <= last; i++) {
    const c = h.getCountAtIndex(i);
    if (!c) continue;
    const v = h.valueFromIndex(i);
    const med = h.medianEquivalentValue(v);
    meds.push(med);
    counts.push(c);
    sum += med * c;
    cum += c;
    while (next < QS.length && cum >= wanted[next]) at[next++] = h.highestEquivalentValue(v);
  }
  const mean = sum / total;
  let dev = 0;
  for (let k = 0; k < meds.length; k++) dev += (meds[k] - mean) * (meds[k] - mean) * counts[k];
  const p = (k) => toMs(Math.min(at[k] ?? max, max));
  return {
    count: total,
    min: toMs(h.minNonZeroValue === Number.MAX_SAFE_INTEGER ? 0 : h.minNonZeroValue),
    mean: toMs(mean),
    stdev: toMs(Math.sqrt(dev / total)),
    p50: p(0),
    p75: p(1),
    p90: p(2),
    p95: p(3),
    p99: p(4),
    max: toMs(max),
  };
}

// The library's `ulp` (the distance to the next double), as its percentile uses it.
function ulp(x) {
  return Math.pow(2, Math.floor(Math.log2(Math.abs(x))) - 52);
}

// Every bucket that holds answers, as [ms, count] in value order (each bucket's median
// equivalent value): the whole distribution, for analyses percentiles cannot do (where its
// steps are).
function buckets(h) {
  const out = [];
  if (!h || h.totalCount === 0) return out;
  const last = Math.min(h.countsArrayLength - 1, h.countsArrayIndex(h.maxValue));
  for (let i = 0; i <= last; i++) {
    const c = h.getCountAtIndex(i);
    if (c) out.push([toMs(h.medianEquivalentValue(h.valueFromIndex(i))), c]);
  }
  return out;
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

module.exports = { create, figures, buckets, encode, decode, merge, toMs };
