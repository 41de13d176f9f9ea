'use strict';

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

// The seed's own estimate: 1,000 connections used 42.64 MB of system memory, so a 500 MB
// VM holds 500 x 1000 / 43 connections (its rounding), ~11.6k.
const SEED = Object.freeze({
  connections: 1000,
  systemMB: 42.64,
  limitMB: 500,
  estimate: Math.round((500 * 1000) / 43),
});

module.exports = { fitMemory, capacityFor, SEED };
