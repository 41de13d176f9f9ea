'use strict';

// A choice's screen (npm run choose without --replicas): every unit it compares (a shape at a
// replica size, behind a balancer, on a Node) measured at one replica by a short search, and
// what that replica could not hold bounds the unit's cost from below. Replicas scale at best
// linearly (the scaling law is never better than linear), so a unit whose one replica broke
// at b/s needs at least ceil(want / (b x MARGIN)) of them, b the highest rate its screen saw
// break and MARGIN what a screen's noise may hide. (Not the rate it held, nor the lowest that
// broke: a screen's level just after an overload, or on a process not yet warm, breaks early,
// and a bound too high would leave out a unit that could have been cheaper.) The units are
// then swept (./sweeps.js) in the order of those bounds, each at the count its bound names
// and the one above it, until the cheapest count measured to hold the rate costs no more than
// the next unit's bound: no unit left can then be cheaper, and none is measured. A bound
// orders and prunes; it is never a candidate's figure (a lower bound is never taken for a
// capacity: issue 82). Pure: screens in, order out.

const { machineCount } = require('../capacity/counts-for');
const { monthlyCost } = require('./price');

// The capacity settings of a screen and of a sweep after it, where the user gave none
// (choose's --search-hold, --warmup, --repetitions, --verify-hold, --precision): a screen is
// one short search (levels of 5 s after 1 s of warm-up, doubling up to the first that breaks,
// not bisected: its bound rests on the highest rate that broke, the doubling's, which no level
// of a bisection below it changes; the rate that held, verified once for 6 s, only starts its
// sweep); a sweep's counts are each bisected to 5% and verified for 30 s, every count for as
// long (one measure for every point). The default choice at 100/s took 20.4 minutes on a
// 2-core machine (bench/choose.js: its four screens 195 s, three units swept; 20.1 with
// screens bisected to 10%, two swept), where capacity's own (20 s levels, three
// verifications of 40 s a count) took 47 with one size.
const SCREEN = { hold: 5, warmup: 1, precision: 1, repetitions: 1, 'verify-hold': 6 };
// (And each count's lowest break measured again once bisected: a count bounded low by one
// stalled level is a point off its curve: capacity --recheck.)
const SWEEP = { hold: 5, repetitions: 1, 'verify-hold': 30, recheck: true };

// A screen is one short search, and the rates it saw break can lie below what a sweep's
// longer, warmer runs then hold: seen, a replica whose screen broke at 800/s (and at 600/s
// after that overload) held 930.7/s for 30 s in its sweep (1.16 times the highest), and one
// that broke at 200/s held 228.5/s (1.14 times). A bound takes a replica to hold up to this
// much more than the highest rate its screen saw break.
const MARGIN = 1.25;

const round = (v, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

// What a screen measured (its 1-replica sweep's points, ./sweeps.js): { maxRate, broke (the
// highest rate any of its levels broke at; null when none did), atLeast (why its search
// stopped before the service did), memoryMiB } or null.
function screenPoint(points) {
  const pt = (points || []).find((x) => x.replicas === 1);
  if (!pt || pt.maxRate == null) return null;
  return {
    maxRate: pt.maxRate,
    broke: pt.highestBroke ?? pt.broke ?? null,
    ...(pt.leftOut ? { atLeast: pt.leftOut } : {}),
    memoryMiB: pt.memoryMiB ?? null,
  };
}

// A unit's bound: the fewest replicas it can need and their cores (and cost a month, with
// prices), from its screen. A screen held "at least" (its search stopped before the service
// did) bounds nothing but one replica. -> { replicas, cores, cost?, text } or { refused }.
// screen: { s (the unit's sweep: capPct, label), point (screenPoint), failed? }; o: { want,
// maxReplicas, price, cores (this machine's) }.
function boundOf(screen, o) {
  const { s, point } = screen;
  if (screen.failed) return { refused: screen.failed };
  if (!point) return { refused: 'its screen measured no rate held' };
  // (Nothing broke, or its search stopped before the service did: no top to its bracket, and
  // one replica is all it bounds.)
  const top = point.atLeast || point.broke == null ? null : Math.max(point.broke, point.maxRate);
  const most1 = top === null ? null : round(top * MARGIN);
  const replicas = most1 === null ? 1 : Math.max(1, Math.ceil(o.want / most1 - 1e-9));
  const held = `1 replica held ${point.atLeast ? 'at least ' : ''}${point.maxRate}/s in its screen${top !== null ? ` and broke at up to ${top}/s (so at most ${most1}/s, with ${Math.round((MARGIN - 1) * 100)}% for a screen's noise)` : ''}`;
  if (replicas > o.maxReplicas)
    return {
      refused: `${held}: ${o.want}/s needs more than ${o.maxReplicas} replicas (--max-replicas) even if they scaled linearly`,
    };
  const most = machineCount(s.capPct, o.cores);
  if (replicas > most)
    return {
      refused: `${held}: ${o.want}/s needs ${replicas} replicas at least, and this machine holds ${most} of ${s.capPct}% of a core with a core left for the generator: measure it on a larger machine, or compare larger replicas (--sizes)`,
    };
  const cores = round(replicas * (s.capPct / 100), 3);
  // (With prices, its memory a replica as its screen measured it.)
  const cost = o.price ? monthlyCost({ cores, replicas, memoryMiB: point.memoryMiB }, o.price) : null;
  return {
    replicas,
    cores,
    ...(cost ? { cost } : {}),
    most,
    text: `${held}: ${replicas} replica(s) at least (${cores} cores), as replicas scale at best linearly`,
  };
}

// The bound's measure of cost: cores, or the cost a month with prices (null when a price
// lacks the memory it needs: then the cores).
const costOf = (x, price) => (price && x.cost?.perMonth != null ? x.cost.perMonth : x.cores);

// The units in the order they are swept: by their bound, the smallest first (then the most
// their one replica held). -> [{ ...screen, bound }] with a bound, then the refused ones.
function orderByBound(screens, o) {
  const withBound = screens.map((x) => ({ ...x, bound: boundOf(x, o) }));
  const ok = withBound
    .filter((x) => !x.bound.refused)
    .sort((a, b) => costOf(a.bound, o.price) - costOf(b.bound, o.price) || b.point.maxRate - a.point.maxRate);
  return [...ok, ...withBound.filter((x) => x.bound.refused)];
}

// Whether a unit still has to be swept: no candidate yet, or the cheapest one measured costs
// more than this unit's bound (it might be cheaper). best: a ranked candidate or null.
const worthSweeping = (unit, best, price) =>
  !unit.bound.refused && (!best || costOf(best, price) > costOf(unit.bound, price));

// The counts a unit is swept at: its bound's count and the one above it (the next try when the
// bound's count does not hold), within what this machine holds; -> counts, and the rate the
// first count's search starts at: 3/4 of what its replicas would hold if they scaled
// linearly from the screen (as a sweep's later counts start, ../capacity/sweep-start.js).
function sweepCounts(unit, o) {
  const n = unit.bound.replicas;
  const counts = [n, n + 1].filter((c) => c <= Math.min(o.maxReplicas, unit.bound.most));
  const start = unit.point.atLeast ? null : round(0.75 * n * unit.point.maxRate);
  return { counts, start };
}

// Why a unit was not swept: its bound is no cheaper than the choice's best. (Each said in
// the measure costOf compares them by.)
const costWords = (x, price) =>
  price && x.cost?.perMonth != null ? `${x.cost.perMonth.toFixed(2)} a month` : `${x.cores} cores`;
const prunedText = (unit, best, price) =>
  `not swept: ${unit.bound.text}, which ${price && unit.bound.cost?.perMonth != null ? 'costs' : 'is'} ${costWords(unit.bound, price)}, no less than ${best.label} x${best.replicas} measured to hold the rate (${costWords(best, price)})`;

module.exports = {
  SCREEN,
  SWEEP,
  MARGIN,
  screenPoint,
  boundOf,
  orderByBound,
  worthSweeping,
  sweepCounts,
  prunedText,
  costOf,
};
