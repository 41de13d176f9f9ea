'use strict';

// Requests over many objects with a skewed popularity, so that a cache's hit ratio means
// something: Zipf's law, the k-th most popular object asked 1/k^s as often as the first
// (web objects' popularity is close to it with s near 1). Used by the lab's own generators
// and, through the processor, by Artillery.

// A sampler of ranks 1..count; `random` in [0, 1) (Math.random, or a seeded one in tests).
function zipf(count, exponent, random = Math.random) {
  const cdf = new Float64Array(count);
  let sum = 0;
  for (let k = 1; k <= count; k++) {
    sum += 1 / k ** exponent;
    cdf[k - 1] = sum;
  }
  for (let i = 0; i < count; i++) cdf[i] /= sum;
  return () => {
    const u = random();
    let lo = 0;
    let hi = count - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] > u) hi = mid;
      else lo = mid + 1;
    }
    return lo + 1;
  };
}

// The path of each request: a constant one, or (objects: { count, exponent, bytes }) an
// object drawn from the popularity law, under `path`.
function pathPicker(path, objects) {
  if (!objects) return () => path;
  const rank = zipf(objects.count, objects.exponent);
  return () => `${path}obj-${rank()}?bytes=${objects.bytes}`;
}

// The spec as one string (Artillery's config.variables), and back.
const encodeObjects = (o) => `${o.count}:${o.exponent}:${o.bytes}`;
function decodeObjects(text) {
  const [count, exponent, bytes] = String(text).split(':').map(Number);
  return { count, exponent, bytes };
}

module.exports = { zipf, pathPicker, encodeObjects, decodeObjects };
