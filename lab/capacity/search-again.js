'use strict';

const { fitUsl, usl } = require('./usl');

// A search that other programs' work held back (this machine busy, the deployment's processes
// waiting for a core: the verdict's otherWork) is run once more: its figure then was this
// machine's "at least", not the deployment's capacity, and a lower bound is never fitted, nor
// checks a prediction, nor gives a difference between Node versions. So is a search whose
// drift could not be judged (other programs busy while its probe at rest answered slower: the
// verdict's driftUnjudged): its figures may be a changed service's, and the rows are not
// ranked (./verdict.js notRanked), which choose takes as a refusal of the whole sweep. The
// second search's verdict is the row's, the first's kept beside it; held back or unjudged
// again, it stays so. At most SEARCH_AGAIN searches a run, so that the plan's "at most" stays
// a bound.
const SEARCH_AGAIN = 2;

// search(key, again) -> a verdict ({ maxRate, text, otherWork?, driftUnjudged? }); label(key): the row's name
// in the log; results: the rows so far, each pushed (and replaced when searched again); saved()
// after each.
function againSearcher({ search, results, label, saved = () => {}, log = () => {}, atMost = SEARCH_AGAIN }) {
  let again = 0;
  const searchKey = async (key) => {
    const first = await search(key, false);
    results.push(first);
    saved();
    if (!(first.otherWork || first.driftUnjudged) || again >= atMost) return first;
    again += 1;
    // (Held back says the figure; unjudged, the figure may be right, the doubt is its drift's.)
    const why = first.otherWork
      ? `this machine's other work held it back (${first.text})`
      : `${first.driftUnjudged}, so its figures may be a changed service's`;
    log(`${label(key)}: ${why}; searching it once more`);
    const second = await search(key, true);
    const kept = {
      ...second,
      text: `${second.text}; searched once more, the first search said: ${first.text}`,
      searchedAgain: { maxRate: first.maxRate, text: first.text },
    };
    results[results.length - 1] = kept;
    saved();
    return kept;
  };
  // A sweep's outliers measured once more before the fit (issue 82), within the same budget:
  // the second verdict is the row's, the first kept beside it (remeasured). keyOf(row): its
  // key; precision: the search's own (--precision), the least noise a point is given.
  searchKey.outliers = async (keyOf, { precision = 0.05 } = {}) => {
    const again1 = async (row, why, note, remeasured) => {
      again += 1;
      const key = keyOf(row);
      log(`${label(key)}: held ${row.maxRate}/s, ${why}: an outlier, measured once more before the fit`);
      const second = await search(key, true);
      results[results.indexOf(row)] = {
        ...second,
        text: `${second.text}; measured once more (${note}), the first search said: ${row.text}`,
        remeasured: { maxRate: row.maxRate, text: row.text, ...remeasured },
      };
      saved();
    };
    for (const { row, below } of outliersOf(results)) {
      if (again >= atMost) return;
      await again1(
        row,
        `less than ${below.replicas} replica(s) held (${below.maxRate}/s)`,
        `it held less than ${below.replicas} replica(s)`,
        { below: below.replicas },
      );
    }
    // Then the one point the curve of the others leaves out by more than its own noise.
    const off = offTheCurve(results, { precision });
    if (off && again < atMost) {
      const curve = Math.round(off.curve * 10) / 10;
      await again1(
        off.row,
        `where the curve the other counts draw says ${curve}/s (off it by more than its own noise, ${off.low}-${off.high}/s)`,
        `off the curve the other counts draw: ${curve}/s there`,
        { curve },
      );
    }
  };
  return searchKey;
}

// The rows of a sweep that held less than a count below them, both verified rates (never an
// "at least", never a row searched once more already): [{ row, below }], the row with the
// most replicas below it that held more.
function outliersOf(results) {
  const verified = results.filter((r) => r.replicas && r.maxRate != null && !r.atLeast);
  const out = [];
  for (const row of verified) {
    if (row.searchedAgain || row.remeasured) continue;
    const above = verified.filter((b) => b.replicas < row.replicas && b.maxRate > row.maxRate);
    if (above.length) out.push({ row, below: above.reduce((a, b) => (b.replicas > a.replicas ? b : a)) });
  }
  return out;
}

// The point of a sweep off the curve the other points draw, by more than its own noise:
// { row, curve, low, high } or null. A point's noise is its own bracket: the rate it held and
// the lowest that broke above it (the knee lies between), widened on each side by the
// bracket's width (at least `precision` of the rate: a search bisects that far). Each verified
// point (never an "at least") is left out in turn and the scaling law fitted to the rest (4
// distinct counts at least, so 5 in all: with 3 left, the law's three parameters go through
// them, every rest fits and none is the odd one out); the suspect is the one whose
// leaving out lets the rest fit best, each measured in its own noise (left out, a point cannot
// pull the curve to itself; an end point, left out, is only extrapolated to, so the fit of
// the rest, not the distance to it, says which point is the odd one). It is an outlier when
// the curve of the rest misses its bracket. A row measured once more already is not again.
function offTheCurve(results, { precision = 0.05 } = {}) {
  const verified = results.filter((r) => r.replicas && r.maxRate != null && !r.atLeast);
  if (new Set(verified.map((r) => r.replicas)).size < 5) return null;
  const bracket = (row) => {
    const top = row.broke && row.broke.rate > row.maxRate ? row.broke.rate : row.maxRate;
    const noise = Math.max(top - row.maxRate, row.maxRate * precision);
    return { low: row.maxRate - noise, high: top + noise, noise };
  };
  // How far `curve` misses a row's bracket, in its noise (0 within it).
  const miss = (row, curve) => {
    const { low, high, noise } = bracket(row);
    return curve < low ? (low - curve) / noise : curve > high ? (curve - high) / noise : 0;
  };
  let best = null;
  for (const row of verified) {
    const rest = verified.filter((r) => r !== row);
    if (new Set(rest.map((r) => r.replicas)).size < 4) continue;
    const fit = fitUsl(rest.map((r) => ({ replicas: r.replicas, rate: r.maxRate })));
    const misfit = rest.reduce((a, r) => a + ((r.maxRate - usl(r.replicas, fit)) / bracket(r).noise) ** 2, 0);
    if (!best || misfit < best.misfit) best = { row, misfit, curve: usl(row.replicas, fit) };
  }
  if (!best || best.row.searchedAgain || best.row.remeasured || miss(best.row, best.curve) === 0) return null;
  const { low, high } = bracket(best.row);
  const round = (v) => Math.round(v * 10) / 10;
  return { row: best.row, curve: best.curve, low: round(low), high: round(high) };
}

module.exports = { SEARCH_AGAIN, againSearcher, outliersOf, offTheCurve };
