'use strict';

// A sweep's count (capacity --replicas) that other programs' work held back is searched once
// more: its figure then was this machine's "at least", not the deployment's capacity, and a
// lower bound is never fitted nor checks a prediction (./scaling.js leaves it out). The second
// search's verdict is the count's, the first's kept beside it; held back again, it stays left
// out. At most SWEEP_AGAIN counts a sweep, so that the plan's "at most" stays a bound.
const SWEEP_AGAIN = 2;

// search(n, again) -> a verdict ({ maxRate, text, otherWork? }); results: the sweep's verdicts
// so far, each count's pushed (and replaced when searched again); saved() after each.
function countSearcher({ search, results, saved = () => {}, log = () => {}, name, atMost = SWEEP_AGAIN }) {
  let again = 0;
  return async (n) => {
    const first = await search(n, false);
    results.push(first);
    saved();
    if (!first.otherWork || again >= atMost) return first;
    again += 1;
    log(`${name} x${n}: this machine's other work held it back (${first.text}); searching ${n} replicas once more`);
    const second = await search(n, true);
    const kept = {
      ...second,
      text: `${second.text}; searched once more, the first search said: ${first.text}`,
      searchedAgain: { maxRate: first.maxRate, text: first.text },
    };
    results[results.length - 1] = kept;
    saved();
    return kept;
  };
}

module.exports = { SWEEP_AGAIN, countSearcher };
