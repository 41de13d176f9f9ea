'use strict';

const { t95 } = require('./student-t');

// Seed 002's napkin math, done with a fit: memory = base + perConnection x n over measured
// (n, bytes) points (least squares), and the number of connections a memory limit holds.
function fitMemory(points) {
  const n = points.length;
  if (n < 2) throw new Error('a fit needs at least two points');
  const mx = points.reduce((a, p) => a + p.n, 0) / n;
  const my = points.reduce((a, p) => a + p.bytes, 0) / n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (const p of points) {
    sxy += (p.n - mx) * (p.bytes - my);
    sxx += (p.n - mx) ** 2;
    syy += (p.bytes - my) ** 2;
  }
  if (sxx === 0) throw new Error('a fit needs at least two different connection counts');
  const perConnection = sxy / sxx;
  const base = my - perConnection * mx;
  // How much of the memory's variation the line explains (1: all of it).
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { baseBytes: base, perConnectionBytes: perConnection, r2 };
}

// Connections a limit holds by the fit: null when memory does not grow with connections.
function capacityFor(limitBytes, fit) {
  if (!(fit.perConnectionBytes > 0)) return null;
  return Math.max(0, Math.floor((limitBytes - fit.baseBytes) / fit.perConnectionBytes));
}

// Capacity against the memory limit, from measured first failures: connections = a + b x MiB
// (least squares), its prediction at `atMiB`, and a 95% prediction interval when there are
// three points or more (two always fit: nothing to say of the error). 1/b is what a
// connection really costs under the limit; -a/b the memory a process needs with none.
// points: [{ limitMiB, connections }]
function fitCapacity(points, atMiB) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((a, p) => a + p.limitMiB, 0) / n;
  const my = points.reduce((a, p) => a + p.connections, 0) / n;
  let sxy = 0;
  let sxx = 0;
  for (const p of points) {
    sxy += (p.limitMiB - mx) * (p.connections - my);
    sxx += (p.limitMiB - mx) ** 2;
  }
  if (sxx === 0) return null;
  const perMiB = sxy / sxx;
  const intercept = my - perMiB * mx;
  const sse = points.reduce((a, p) => a + (p.connections - (intercept + perMiB * p.limitMiB)) ** 2, 0);
  const predicted = intercept + perMiB * atMiB;
  let low = null;
  let high = null;
  if (n >= 3) {
    const s = Math.sqrt(sse / (n - 2));
    const half = t95(n - 2) * s * Math.sqrt(1 + 1 / n + (atMiB - mx) ** 2 / sxx);
    low = Math.max(0, Math.round(predicted - half));
    high = Math.round(predicted + half);
  }
  return {
    n,
    perMiB,
    intercept,
    bytesPerConnection: perMiB > 0 ? 2 ** 20 / perMiB : null,
    baseMiB: perMiB > 0 ? -intercept / perMiB : null,
    atMiB,
    predicted: Math.round(predicted),
    low,
    high,
  };
}

// The seed's own estimate: 1,000 connections used 42.64 MB of system memory, so a 500 MB
// VM holds 500 x 1000 / 43 connections (its rounding), ~11.6k.
const SEED = Object.freeze({
  connections: 1000,
  systemMB: 42.64,
  limitMB: 500,
  estimate: Math.round((500 * 1000) / 43),
});

// The estimate from the levels held: the fit, the capacity for the limit, and when there is
// none, why (said to the user, and kept in the run's notes). A few hundred connections can
// cost less than one collection's noise: RSS then falls as they rise, and the fit has
// nothing to divide the limit by.
function estimateOf(points, limitBytes) {
  if (points.length < 2) return { fit: null, capacity: null, noEstimate: 'fewer than two levels were held: no fit' };
  const fit = fitMemory(points);
  const capacity = capacityFor(limitBytes, fit);
  return {
    fit,
    capacity,
    noEstimate:
      capacity === null
        ? `memory did not grow with connections (${Math.round(fit.perConnectionBytes)} bytes a connection by the fit): no estimate; hold more connections (--levels) to measure what one costs`
        : null,
  };
}

module.exports = { fitMemory, capacityFor, estimateOf, fitCapacity, SEED };
