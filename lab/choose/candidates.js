'use strict';

const { fitUsl, predict, need, usl } = require('../capacity/usl');
const { MIN_POINTS } = require('../capacity/scaling');
const { monthlyCost, byCost } = require('./price');

// The deployment to choose (npm run choose): from the capacity measured at a few replica
// counts of each shape (capacity --replicas, one sweep a shape), the fewest replicas of each
// predicted to hold the target rate with its headroom, ranked by the cores they are given.
// Pure: sweeps in, candidates and the choice (or why there is none) out.

// Past this many replicas a prediction is an extrapolation too far from what was measured
// (and the lab's own sweeps stop at 32).
const MAX_REPLICAS = 32;

const round = (v, d = 1) => (v === null || v === undefined ? null : Math.round(v * 10 ** d) / 10 ** d);

// The shape's name as a person reads it: replicated, or multi-replicated of 2 workers, and the
// balancer when it is not the default.
const labelOf = (c) =>
  `${c.shape}${c.workers > 1 ? ` (${c.workers} workers each)` : ''}${c.sized ? ` of ${c.capPct}% a replica` : ''}${c.balancer && c.balancer !== 'nginx' ? ` behind ${c.balancer}` : ''}${c.node ? ` on Node ${c.node}` : ''}`;

// One shape's candidate. sweep: { shape, workers, balancer, node (the Node version its service
// ran on, choose --node; null for the lab's own), capPct (a replica's CPU share, %), sized (one
// of --sizes: its share said in its label),
// points: [{ replicas, maxRate, leftOut?, memoryMiB? }], notRanked? (the search found the
// service changing) }; o: { rate, headroom (0.3), maxReplicas }.
function candidateOf(sweep, o) {
  const want = o.rate * (1 + o.headroom);
  const base = {
    // (Its sweep's id: its folder's name under sweeps/, or its screen's under screens/.)
    ...(sweep.id ? { sweepId: sweep.id } : {}),
    shape: sweep.shape,
    workers: sweep.workers,
    balancer: sweep.balancer,
    node: sweep.node ?? null,
    ...(sweep.sized ? { sized: true } : {}),
    label: labelOf(sweep),
    cpuPerReplica: sweep.capPct / 100,
    points: sweep.points,
  };
  if (sweep.failed) return { ...base, replicas: null, refused: sweep.failed };
  if (sweep.notRanked) return { ...base, replicas: null, refused: sweep.notRanked };
  const good = sweep.points.filter((p) => !p.leftOut && p.maxRate !== null);
  // Measured: the fewest replicas measured to hold it, when a count measured does. (A point
  // left out of the fit still held its rate: the generator, the machine or --max-rate stopped
  // its search there, so it holds at least that.)
  const measured =
    sweep.points.filter((p) => p.maxRate !== null && p.maxRate >= want).sort((a, b) => a.replicas - b.replicas)[0] ??
    null;
  let fit = null;
  if (good.length >= MIN_POINTS) fit = fitUsl(good.map((p) => ({ replicas: p.replicas, rate: p.maxRate })));
  const fitOut = fit
    ? {
        sigma: round(fit.sigma, 5),
        kappa: round(fit.kappa, 6),
        lambda: round(fit.lambda, 2),
        dof: fit.dof,
        peak: fit.peak ? { replicas: round(fit.peak.replicas, 2), rate: round(fit.peak.rate) } : null,
      }
    : null;
  const curve = fit
    ? Array.from({ length: Math.min(o.maxReplicas, Math.max(8, ...good.map((p) => p.replicas * 2))) }, (_, i) => {
        const pr = predict(fit, i + 1);
        return { replicas: i + 1, rate: round(pr.rate), low: round(pr.low), high: round(pr.high) };
      })
    : null;
  // The curve's count, unless a measurement says it does not hold: a count measured under the
  // rate wanted (a verified rate, not "at least") is never chosen on a prediction; the next
  // count up is tried (issue 82: 3 replicas were chosen "predicted 137.5/s" though measured at
  // 125/s under 130 wanted).
  let predicted = fit ? need(fit, want, o.maxReplicas) : null;
  // (A count whose search stopped at a break at or below the rate wanted, capacity
  // --stop-below, is measured short too: what it holds lies under that break.)
  const measuredShort = (n) =>
    good.some((p) => p.replicas === n && p.maxRate < want) ||
    sweep.points.some((p) => p.replicas === n && p.below != null && p.below <= want);
  while (predicted !== null && measuredShort(predicted)) predicted = predicted < o.maxReplicas ? predicted + 1 : null;
  // The count: what the curve says, or a count measured to hold it when it is fewer (or there
  // is no fit). A count measured is a measurement, the curve a prediction: both are said.
  let replicas = predicted;
  let from = 'predicted';
  if (measured && (replicas === null || measured.replicas <= replicas)) {
    replicas = measured.replicas;
    from = 'measured';
  }
  const out = { ...base, fit: fitOut, curve, want: round(want), from };
  if (replicas === null) {
    return {
      ...out,
      // (Refused: neither measured nor predicted to hold it.)
      from: null,
      replicas: null,
      refused: whyNone(fit, good, want, o, sweep),
    };
  }
  const pr = fit ? predict(fit, replicas) : null;
  const at = (from === 'measured' ? measured : good.find((p) => p.replicas === replicas)) ?? null;
  return {
    ...out,
    replicas,
    cores: round(replicas * base.cpuPerReplica, 3),
    prediction: pr ? { rate: round(pr.rate), low: round(pr.low), high: round(pr.high) } : null,
    measured: at ? { rate: at.maxRate, ...(at.leftOut ? { atLeast: at.leftOut } : {}) } : null,
    // What the count is expected to hold: its measurement when it was measured, else the curve.
    holds: at ? at.maxRate : round(pr.rate),
    // Sure when even the interval's low end holds the target rate itself.
    sure: at ? at.maxRate >= o.rate : pr.low !== null ? pr.low >= o.rate : null,
    memoryMiB: memoryNear(sweep.points, replicas),
  };
}

// Why no count of a shape holds the rate: past the curve's peak (coherency: more replicas hold
// less), past the counts the lab predicts for, or no fit and no count measured holding it.
function whyNone(fit, good, want, o, sweep) {
  if (!fit) {
    const best = good.reduce((a, p) => (a && a.maxRate >= p.maxRate ? a : p), null);
    const short = sweep.points.filter((p) => p.below != null).map((p) => `${p.replicas} broke at ${p.below}/s`);
    return `no fit (${good.length} good point(s) of the ${MIN_POINTS} the law needs) and no count measured holds ${round(want)}/s${best ? ` (the most: ${best.maxRate}/s at ${best.replicas} replica(s))` : ''}${short.length ? ` (below it: ${short.join(', ')})` : ''}: measure more counts (--replicas)`;
  }
  if (fit.peak && fit.peak.replicas <= o.maxReplicas && fit.peak.rate < want) {
    return `${round(want)}/s is beyond this shape's peak: the curve peaks at ${round(fit.peak.replicas)} replicas, ${round(fit.peak.rate)}/s, and falls past it (coherency, κ = ${round(fit.kappa, 6)}): more replicas will not get there; make each replica cheaper, or remove what the replicas share`;
  }
  const top = usl(o.maxReplicas, fit);
  return `${round(want)}/s needs more than ${o.maxReplicas} replicas of ${round(sweep.capPct)}% of a core (${o.maxReplicas} are predicted to hold ${round(top)}/s): a bigger replica (--cap) or a cheaper request`;
}

// A replica's memory at the count measured nearest to n (its largest, MiB), or null.
function memoryNear(points, n) {
  const withMemory = points.filter((p) => p.memoryMiB != null);
  if (!withMemory.length) return null;
  return withMemory.reduce((a, p) => (Math.abs(p.replicas - n) < Math.abs(a.replicas - n) ? p : a)).memoryMiB;
}

// Every shape's candidate, ranked: the fewest cores first, then the least memory, then the
// most it is expected to hold; with prices (o.price, ./price.js), the cheapest a month first.
// Returns { candidates, choice (the first that holds), none }.
function rankCandidates(sweeps, o) {
  const opts = { headroom: 0.3, maxReplicas: MAX_REPLICAS, ...o };
  const all = sweeps.map((s) => withCost(candidateOf(s, opts), opts.price));
  const ok = all
    .filter((c) => c.replicas !== null)
    .sort(
      (a, b) =>
        (opts.price ? byCost(a, b) : 0) ||
        a.cores - b.cores ||
        (a.memoryMiB ?? Infinity) - (b.memoryMiB ?? Infinity) ||
        (b.holds ?? 0) - (a.holds ?? 0),
    );
  ok.forEach((c, i) => (c.rank = i + 1));
  const candidates = [...ok, ...all.filter((c) => c.replicas === null)];
  return {
    candidates,
    choice: ok[0] ?? null,
    none: ok.length
      ? null
      : `no deployment is predicted to hold ${opts.rate}/s with ${Math.round(opts.headroom * 100)}% headroom: ${all.map((c) => `${c.label}: ${c.refused}`).join('; ')}`,
  };
}

// A candidate with its cost a month at `price` (none without prices).
const withCost = (c, price) => (price && c.replicas !== null ? { ...c, cost: monthlyCost(c, price) } : c);

// The order the candidates are checked in (npm run choose --tries): each candidate, and one
// replica more of each (the natural next try when a count's check does not hold: the same
// shape, a little more room), by cores (by cost a month, with prices), a candidate before a
// step up of the same cost.
function checkOrder(candidates, maxReplicas = MAX_REPLICAS, price = null) {
  const ok = candidates.filter((c) => c.replicas !== null);
  const ups = ok
    .filter((c) => c.replicas < maxReplicas)
    .map((c) => {
      const n = c.replicas + 1;
      // (A count held "at least" its rate is a measurement too, as for the candidates.)
      const at = c.points.find((p) => p.replicas === n && p.maxRate !== null) ?? null;
      const pr = c.curve?.find((x) => x.replicas === n) ?? null;
      return withCost(
        {
          ...c,
          rank: undefined,
          stepUp: true,
          replicas: n,
          cores: round(n * c.cpuPerReplica, 3),
          from: at ? 'measured' : 'predicted',
          measured: at ? { rate: at.maxRate, ...(at.leftOut ? { atLeast: at.leftOut } : {}) } : null,
          prediction: pr ? { rate: pr.rate, low: pr.low, high: pr.high } : null,
          holds: at ? at.maxRate : (pr?.rate ?? c.holds),
          memoryMiB: memoryNear(c.points, n),
        },
        price,
      );
    });
  return [...ok.map((c, i) => ({ c, i, up: 0 })), ...ups.map((c, i) => ({ c, i, up: 1 }))]
    .sort((a, b) => (price ? byCost(a.c, b.c) : 0) || a.c.cores - b.c.cores || a.up - b.up || a.i - b.i)
    .map((x) => x.c);
}

module.exports = { rankCandidates, candidateOf, checkOrder, labelOf, MAX_REPLICAS };
