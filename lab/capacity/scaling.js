'use strict';

const { fitUsl, predict, need, usl } = require('./usl');
const { resolveDeployment } = require('../topology/deployments');
const { entryOf } = require('../topology/graph');

// How capacity grows with replicas (capacity --replicas 1,2,3,4): the capacities measured at
// each count as points, the Universal Scalability Law fitted to the good ones (./usl.js), a
// prediction at --predict N made before N is measured and checked by it, and the fewest
// replicas for --need R. Pure: the scaling section of capacity.json from the verdicts.

// Fewer good points than this: no fit (three parameters and one degree of freedom at least).
const MIN_POINTS = 4;
// The entry counts as the limit at a point when it used this share of a core there: one
// balancer in front of every replica, it does not scale with them.
const ENTRY_BUSY = 0.85;

// Why a point is left out of the fit, or null: what set its limit was not the replicas.
function leftOut(v, entry) {
  if (v.maxRate === null) {
    if (v.bound === 'stop-below')
      return `it broke at ${v.below}/s, at or below ${v.stopBelow}/s (--stop-below): not verified`;
    return v.bound === 'unverified' ? 'no verified rate' : `no rate measured (${v.bound})`;
  }
  if (v.bound === 'generator') return 'the generator was the limit';
  if (v.bound === 'machine') return 'this machine was the limit';
  if (v.bound === 'max-rate') return 'nothing broke up to --max-rate';
  const entryMs = entry ? v.cpuMsPerRequestByTier?.[entry] : null;
  if (entryMs != null && (entryMs * v.maxRate) / 1000 >= ENTRY_BUSY) {
    return `the ${entry} was the limit: ${Math.round((entryMs * v.maxRate) / 10)}% of a core at ${v.maxRate}/s`;
  }
  return null;
}

const round = (v, d = 1) => (v === null || v === undefined ? null : Math.round(v * 10 ** d) / 10 ** d);

// verdicts: [{ replicas, verdict }] in the order measured (the checked prediction's last);
// o: { deployment, entry (the balancer's node name), predictN, needRate }.
function scalingOf(verdicts, { deployment, entry = 'nginx', predictN = null, needRate = null }) {
  const sweep = verdicts.filter((v) => v.replicas !== predictN || !predictN);
  const points = sweep.map(({ replicas, verdict: v }) => {
    const why = leftOut(v, entry);
    // (Stopped below --stop-below: the rate it broke at, above whatever it holds.)
    return {
      replicas,
      maxRate: v.maxRate,
      ...(v.bound === 'stop-below' ? { below: v.below } : {}),
      ...(why ? { leftOut: why } : {}),
    };
  });
  const good = points.filter((p) => !p.leftOut);
  const out = { deployment, points, fit: null };
  // The count measured after the sweep (--predict N): said whether or not a fit predicted it
  // (without a fit it is measured all the same, and was once left out of `scaling`).
  const checked = predictN ? verdicts.find((v) => v.replicas === predictN) : null;
  if (checked) {
    const why = leftOut(checked.verdict, entry);
    out.measured = { replicas: predictN, maxRate: checked.verdict.maxRate, ...(why ? { leftOut: why } : {}) };
  }
  if (good.length < MIN_POINTS) {
    out.fitRefused = `${good.length} good point(s): the law has three parameters, and a fit from fewer than ${MIN_POINTS} points has nothing left to test it${
      points.some((p) => p.leftOut)
        ? ` (left out: ${points
            .filter((p) => p.leftOut)
            .map((p) => `${p.replicas} replica(s), ${p.leftOut}`)
            .join('; ')})`
        : ''
    }`;
    return out;
  }
  const f = fitUsl(good.map((p) => ({ replicas: p.replicas, rate: p.maxRate })));
  out.fit = {
    sigma: round(f.sigma, 5),
    kappa: round(f.kappa, 6),
    lambda: round(f.lambda, 2),
    se: f.se ? { sigma: round(f.se.sigma, 5), kappa: round(f.se.kappa, 6), lambda: round(f.se.lambda, 2) } : null,
    dof: f.dof,
    residualSe: round(f.residualSe, 2),
    peak: f.peak ? { replicas: round(f.peak.replicas, 2), rate: round(f.peak.rate, 1) } : null,
  };
  // The curve (and its band) to draw, from 1 replica to past the last count measured.
  const top = Math.max(...points.map((p) => p.replicas), predictN ?? 0, f.peak ? Math.ceil(f.peak.replicas) : 0) + 1;
  out.curve = Array.from({ length: Math.min(top, 64) }, (_, i) => {
    const pr = predict(f, i + 1);
    return { replicas: i + 1, rate: round(pr.rate), low: round(pr.low), high: round(pr.high) };
  });
  out.linear = round(f.lambda, 2);
  if (predictN) {
    const pr = predict(f, predictN);
    out.prediction = { replicas: predictN, rate: round(pr.rate), low: round(pr.low), high: round(pr.high) };
    if (checked) {
      if (checked.verdict.maxRate !== null) {
        out.errorPct = round(((pr.rate - checked.verdict.maxRate) / checked.verdict.maxRate) * 100, 1);
        out.withinInterval =
          pr.low !== null ? checked.verdict.maxRate >= pr.low && checked.verdict.maxRate <= pr.high : null;
      }
    }
  }
  if (needRate) {
    const n = need(f, needRate);
    out.need = {
      rate: needRate,
      replicas: n,
      text:
        n === null
          ? `no replica count does: the curve peaks at ${f.peak ? `${round(f.peak.replicas, 1)} replicas, ${round(f.peak.rate)}/s` : `${round(f.lambda / Math.max(f.sigma, 1e-9))}/s as replicas grow`}`
          : `${n} replica(s) are predicted to hold ${needRate}/s (${round(usl(n, f))}/s)`,
    };
  }
  return out;
}

// The scaling of the counts a sweep searched so far (the live page's, and an interrupted
// sweep's): p, the capacity plan (./plan.js); results, the counts' rows.
function scalingNow(p, results) {
  const entry = entryOf(resolveDeployment(p.deployments[0], { balancer: p.values.balancer }));
  return scalingOf(
    results.map((v) => ({ replicas: v.replicas, verdict: v })),
    {
      deployment: p.deployments[0],
      entry,
      predictN: p.values.predict ?? null,
      needRate: p.values.need ?? null,
    },
  );
}

module.exports = {
  scalingNow,
  scalingOf,
  MIN_POINTS,
};
