'use strict';

// What sets the chosen deployment's knee (npm run choose): from the level profiled at the
// rate its count is expected to hold, the tier nearest its limit (its CPU over what it is
// given: the replicas their caps, every other tier one core) and what that tier spent its
// time on (its hottest function, the database's costliest statement). Pure.

// A tier this busy (its cores over what it is given) is at its limit.
const NEAR = 0.7;

const round = (v, d = 1) => Math.round(v * 10 ** d) / 10 ** d;

// knee: the level (lab/capacity/level.js judgeLevel) with its cost and profile; given: { replicas:
// cores the replicas tier is given }.
function whyOf(knee, given) {
  if (!knee) return null;
  // (The knee's level could not run: the choice stands on its check, and says so.)
  if (knee.failed)
    return {
      rate: knee.rate,
      dir: null,
      tiers: [],
      tier: null,
      hottest: null,
      statement: null,
      text: `no profile at the knee: the level at ${round(knee.rate)}/s could not run (${knee.failed}); the choice stands on its check`,
    };
  // (Said at the rate the level was run at, as the terminal said it, with what was answered
  // beside: "at 16/s" for a level the log had run at 17.5/s read as another level.)
  const answered =
    knee.answeredPerS && Math.abs(knee.answeredPerS - knee.rate) >= 0.05
      ? ` (${round(knee.answeredPerS)}/s answered)`
      : '';
  // Each tier's mean cores over the level (lab/capacity/level.js costOf) against what it is given.
  const tiers = Object.entries(knee.cost?.tierCores || {})
    .map(([tier, cores]) => {
      const of = given[tier] ?? 1;
      return { tier, cores, of, busy: round(cores / of, 3) };
    })
    .sort((a, b) => b.busy - a.busy);
  const top = tiers[0] ?? null;
  const nodes = Object.entries(knee.profile?.nodes || {});
  // The tier's own processes (the replicas: replica-1...), their hottest function by own time.
  const mine = nodes.filter(([n]) => (top?.tier === 'replicas' ? /^replica-/.test(n) : n === top?.tier));
  const fns = (mine.length ? mine : nodes).flatMap(([node, x]) => (x.top || []).map((f) => ({ node, ...f })));
  const hottest = fns.sort((a, b) => (b.selfShare ?? 0) - (a.selfShare ?? 0))[0] ?? null;
  const statement = knee.profile?.statements?.[0] ?? null;
  const parts = [];
  if (top) {
    const used = `the ${top.tier} used ${round(top.busy * 100, 0)}% of the ${top.of} core(s) given, ${top.cores} on average over the level`;
    // (A count measured "at least" --max-rate was never pushed to its knee: said.)
    parts.push(
      top.busy >= NEAR
        ? `at ${round(knee.rate)}/s${answered} ${used}`
        : `at ${round(knee.rate)}/s${answered} no tier was near its limit (the busiest: ${used}): this rate is below the knee`,
    );
  }
  if (hottest)
    parts.push(
      `their hottest function: ${hottest.name || '(anonymous)'}${hottest.file ? ` (${hottest.file}${hottest.line ? `:${hottest.line}` : ''})` : ''}, ${round((hottest.selfShare ?? 0) * 100, 0)}% of their samples`,
    );
  if (statement)
    parts.push(`the costliest statement: ${String(statement.query ?? statement.text ?? '').slice(0, 120)}`);
  return {
    rate: knee.rate,
    dir: knee.dir,
    tiers,
    tier: top?.tier ?? null,
    hottest,
    statement,
    text: parts.length ? parts.join('; ') : 'the level at the knee has no profile',
  };
}

module.exports = { whyOf };
