'use strict';

// The Universal Scalability Law (Gunther), fitted to measured capacities:
//   X(N) = λN / (1 + σ(N−1) + κN(N−1))
// N the replicas, X(N) what they hold; λ one replica's rate, σ the contention (the share of
// the work that waits in line for something shared: a lock, the balancer, the database), κ the
// coherency cost (each replica paying for every other: retrograde scaling when κ > 0, the peak
// at N* = √((1−σ)/κ)). Pure functions.
//
// The fit: least squares on X, with σ in [0, 1] and κ >= 0. λ enters linearly, so for each
// (σ, κ) its best value is closed-form; (σ, κ) are first found by a grid over their whole
// range (a start that does not depend on a guess), then refined by Levenberg-Marquardt
// (ml-levenberg-marquardt) inside the bounds (where Gauss-Newton alone runs off to a negative
// κ). The uncertainty: the parameters' covariance s²(JᵀJ)⁻¹ at
// the solution (J the model's Jacobian, s² the residual variance over n−3 degrees of freedom),
// and a prediction's interval by the delta method with Student's t (95%), for a new
// measurement (the residual variance added).

const { levenbergMarquardt } = require('ml-levenberg-marquardt');
const { Matrix, inverse, determinant } = require('ml-matrix');
const { t95 } = require('../analysis/student-t');

const usl = (n, { sigma, kappa, lambda }) => (lambda * n) / (1 + sigma * (n - 1) + kappa * n * (n - 1));

// For fixed σ, κ: the shape g(n) and the best λ (Σxg / Σg²) with its residual sum of squares.
function profile(points, sigma, kappa) {
  let xg = 0;
  let gg = 0;
  const gs = points.map(({ n }) => n / (1 + sigma * (n - 1) + kappa * n * (n - 1)));
  points.forEach(({ x }, i) => {
    xg += x * gs[i];
    gg += gs[i] * gs[i];
  });
  const lambda = gg > 0 ? xg / gg : 0;
  const rss = points.reduce((a, { x }, i) => a + (x - lambda * gs[i]) ** 2, 0);
  return { lambda, rss };
}

// The inverse of a matrix (ml-matrix), or null when it is singular.
function inverseOf(m) {
  const M = new Matrix(m);
  const det = determinant(M);
  if (!Number.isFinite(det) || Math.abs(det) < 1e-300) return null;
  return inverse(M).to2DArray();
}

// The gradient of X(n) in (σ, κ, λ).
function gradient(n, { sigma, kappa, lambda }) {
  const d = 1 + sigma * (n - 1) + kappa * n * (n - 1);
  return [(-lambda * n * (n - 1)) / (d * d), (-lambda * n * n * (n - 1)) / (d * d), n / d];
}

// points: [{ replicas, rate }] (at least 3 distinct counts). Returns
// { sigma, kappa, lambda, se: { sigma, kappa, lambda }, dof, residualSe, cov, peak, points }.
function fitUsl(input) {
  const points = input.map((p) => ({ n: Number(p.replicas), x: Number(p.rate) }));
  if (new Set(points.map((p) => p.n)).size < 3) throw new Error('the fit needs at least 3 distinct replica counts');
  if (points.some((p) => !(p.n >= 1) || !(p.x >= 0))) throw new Error('replicas >= 1 and rates >= 0 only');
  // The grid: σ from 0 to 1, κ from 0 over six decades.
  let best = { sigma: 0, kappa: 0, rss: Infinity };
  const sigmas = Array.from({ length: 101 }, (_, i) => i / 100);
  const kappas = [0, ...Array.from({ length: 61 }, (_, i) => 10 ** (-7 + i / 10))];
  for (const sigma of sigmas) {
    for (const kappa of kappas) {
      const { rss } = profile(points, sigma, kappa);
      if (rss < best.rss) best = { sigma, kappa, rss };
    }
  }
  // The refinement: Levenberg-Marquardt (ml-levenberg-marquardt) from the grid's best, within
  // the bounds, on (σ, κ, λ/λ₀) (λ scaled by the grid's, so that all three move on one scale);
  // its answer is kept when it fits better than the grid's point.
  const start = profile(points, best.sigma, best.kappa);
  const l0 = start.lambda > 0 ? start.lambda : 1;
  const lm = levenbergMarquardt(
    { x: points.map((p) => p.n), y: points.map((p) => p.x) },
    ([sigma, kappa, l]) =>
      (n) =>
        usl(n, { sigma, kappa, lambda: l * l0 }),
    {
      initialValues: [best.sigma, best.kappa, 1],
      minValues: [0, 0, 0],
      maxValues: [1, 1e6, 1e6],
      damping: 1e-3,
      gradientDifference: 1e-9,
      maxIterations: 500,
      errorTolerance: 1e-15,
    },
  );
  const [ls, lk, ll] = lm.parameterValues;
  const lmRss = points.reduce((a, { n, x }) => a + (x - usl(n, { sigma: ls, kappa: lk, lambda: ll * l0 })) ** 2, 0);
  const refined =
    [ls, lk, ll].every(Number.isFinite) && lmRss < best.rss
      ? { sigma: ls, kappa: lk, lambda: ll * l0, rss: lmRss }
      : { ...best, lambda: start.lambda };
  best = refined;
  const fit = { sigma: best.sigma, kappa: best.kappa, lambda: best.lambda };
  const dof = points.length - 3;
  const s2 = dof > 0 ? best.rss / dof : null;
  // JᵀJ in (σ, κ, λ); a parameter at its bound has the uncertainty of the others around it.
  const jtj = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  for (const { n } of points) {
    const g = gradient(n, fit);
    for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) jtj[a][b] += g[a] * g[b];
  }
  const inv = inverseOf(jtj);
  const cov = s2 !== null && inv ? inv.map((row) => row.map((v) => v * s2)) : null;
  const se = cov
    ? {
        sigma: Math.sqrt(Math.max(0, cov[0][0])),
        kappa: Math.sqrt(Math.max(0, cov[1][1])),
        lambda: Math.sqrt(Math.max(0, cov[2][2])),
      }
    : null;
  const peakN = fit.kappa > 0 ? Math.sqrt((1 - fit.sigma) / fit.kappa) : null;
  return {
    ...fit,
    se,
    dof,
    residualSe: s2 !== null ? Math.sqrt(s2) : null,
    cov,
    peak: peakN !== null ? { replicas: peakN, rate: usl(peakN, fit) } : null,
    points: points.map(({ n, x }) => ({ replicas: n, rate: x })),
  };
}

// What N replicas are predicted to hold: { rate, low, high } (95%, for a new measurement; the
// interval is null when the fit has no degree of freedom left).
function predict(fit, n) {
  const rate = usl(n, fit);
  if (!fit.cov || fit.residualSe === null) return { replicas: n, rate, low: null, high: null };
  const g = gradient(n, fit);
  let v = 0;
  for (let a = 0; a < 3; a++) for (let b = 0; b < 3; b++) v += g[a] * fit.cov[a][b] * g[b];
  const half = t95(fit.dof) * Math.sqrt(Math.max(0, v) + fit.residualSe ** 2);
  return { replicas: n, rate, low: Math.max(0, rate - half), high: rate + half };
}

// The fewest replicas predicted to hold `rate` (up to maxN), or null: past the peak no count
// does. (By the curve itself: its interval says how sure.)
function need(fit, rate, maxN = 1000) {
  const top = fit.peak ? Math.min(maxN, Math.ceil(fit.peak.replicas)) : maxN;
  for (let n = 1; n <= top; n++) if (usl(n, fit) >= rate) return n;
  return null;
}

module.exports = { usl, fitUsl, predict, need, t95 };
