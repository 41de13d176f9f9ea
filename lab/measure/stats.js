'use strict';

// Exact statistics of one set of raw samples. Percentiles are computed from the samples
// themselves (nearest rank), never averaged from other percentiles.
function summarize(samples) {
  if (samples.length === 0) return { count: 0, min: null, mean: null, p50: null, p95: null, p99: null, max: null };
  const s = Float64Array.from(samples).sort();
  const rank = (p) => s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
  let sum = 0;
  for (const v of s) sum += v;
  return {
    count: s.length,
    min: s[0],
    mean: sum / s.length,
    p50: rank(50),
    p95: rank(95),
    p99: rank(99),
    max: s[s.length - 1],
  };
}

module.exports = summarize;
