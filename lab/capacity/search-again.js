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
  const searchKey = async (key) => {
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
  // A sweep's outliers measured once more before the fit (issue 82), within the same budget:
  // the second verdict is the row's, the first kept beside it (remeasured). keyOf(row): its key.
  searchKey.outliers = async (keyOf) => {
    for (const { row, below } of outliersOf(results)) {
      if (again >= atMost) return;
      again += 1;
      const key = keyOf(row);
      log(
        `${label(key)}: held ${row.maxRate}/s, less than ${below.replicas} replica(s) held (${below.maxRate}/s): an outlier, measured once more before the fit`,
      );
      const second = await search(key, true);
      results[results.indexOf(row)] = {
        ...second,
        text: `${second.text}; measured once more (it held less than ${below.replicas} replica(s)), the first search said: ${row.text}`,
        remeasured: { maxRate: row.maxRate, text: row.text, below: below.replicas },
      };
      saved();
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

module.exports = { SEARCH_AGAIN, againSearcher, outliersOf };
