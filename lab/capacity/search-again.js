'use strict';

// A search that other programs' work held back (this machine busy, the deployment's processes
// waiting for a core: the verdict's otherWork) is run once more: its figure then was this
// machine's "at least", not the deployment's capacity, and a lower bound is never fitted, nor
// checks a prediction, nor gives a difference between Node versions. The second search's
// verdict is the row's, the first's kept beside it; held back again, it stays "at least". At
// most SEARCH_AGAIN searches a run, so that the plan's "at most" stays a bound.
const SEARCH_AGAIN = 2;

// search(key, again) -> a verdict ({ maxRate, text, otherWork? }); label(key): the row's name
// in the log; results: the rows so far, each pushed (and replaced when searched again); saved()
// after each.
function againSearcher({ search, results, label, saved = () => {}, log = () => {}, atMost = SEARCH_AGAIN }) {
  let again = 0;
  return async (key) => {
    const first = await search(key, false);
    results.push(first);
    saved();
    if (!first.otherWork || again >= atMost) return first;
    again += 1;
    log(`${label(key)}: this machine's other work held it back (${first.text}); searching it once more`);
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
}

module.exports = { SEARCH_AGAIN, againSearcher };
