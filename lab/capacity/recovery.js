'use strict';

const { atRest, RULE: AT_REST_RULE } = require('./at-rest');

// Whether a service has recovered from a level that broke its SLO, before the search measures
// anything else: a light probe (a few arrivals a second for PROBE_S seconds, the same requests
// as the levels) answered as it was before the search began. A real service under overload
// may never come back (its state grew, its backlog never drained), and a search that goes on
// measures a different system at every step: a stateful service once got capacity "none" in
// all four deployments, every bisection level breaking after the first overload, unnoticed.
//
// The rule: the probe answered as the baseline did (a probe after the deployment's warm-up,
// before any level), by the same figures and bands drift is judged by (./at-rest.js): no more
// errors, its fastest answer and its median (on enough answers) not slower than the band. (Its
// median's band was once loosened to 3x and 50 ms so that the lab's own tests passed beside
// three other test files on two cores: a rule set by a test harness. The tests now drive
// services whose limits they set.) A service that changed less than that is still caught: the last
// level that held is measured again before bisecting (./search.js), and a probe at rest after
// the search is held against the baseline (./drift.js). The probes are repeated, back to back,
// for at most the wait (--recovery-wait, 60 s by default).
const PROBE_S = 2;
const WAIT_S = 60;

const RULE = `a probe of ${PROBE_S} s answered as before the search (${AT_REST_RULE})`;

// The probe's rate: light beside the search's first level, at least 1 a second.
const probeRate = (start) => Math.max(1, Math.min(10, Math.round(start / 10)));

// Whether `probe` answered as `baseline` did.
function recoveredFrom(baseline, probe) {
  if (!probe || !(probe.answered > 0)) return false;
  return atRest(baseline, probe).out.length === 0;
}

// A service at rest that answers slower than before, steadily: SETTLED probes in a row, none
// with an error, their medians within SPREAD of each other. A queue that drains, or a window of
// recent work emptying, answers faster probe after probe; a service whose state grew answers
// the same, slower, however long it rests, and waiting out --recovery-wait tells nothing more
// (a growing service once waited 60 s at 35 ms a probe, 11 ms before the search).
// Steady is judged over time as well as probes: the last SETTLED probes, and more before them
// until they span STEADY_S from the first's measured window to the last's end. A window of
// recent work answers the same until the overload leaves it, then at once faster: the paced
// app's 10 s window looked steady over three probes back to back once each probe ended 1.2 s
// sooner (7 s in all), and was called drift where three probes had spanned 10.5 s before.
const SETTLED = 3;
const SPREAD = 0.2;
const STEADY_S = 10;
const endOf = (l) => l.at + (l.holdS ?? 0) * 1000;
// Whether the last probes' figure `read` (a latency) is known and within SPREAD, over SETTLED
// probes and STEADY_S at least (a probe with no time of its own spans nothing).
function steady(probes, read) {
  if (probes.length < SETTLED) return false;
  const end = endOf(probes.at(-1));
  // (A time unknown is NaN, and spans nothing.)
  const spans = (i) => end - probes[i].at >= STEADY_S * 1000;
  let i = probes.length - SETTLED;
  while (i > 0 && !spans(i)) i--;
  if (!spans(i)) return false;
  const figs = probes.slice(i).map(read);
  if (figs.some((v) => v == null)) return false;
  return Math.max(...figs) <= (1 + SPREAD) * Math.min(...figs);
}
const settledSlower = (probes) =>
  !probes.slice(-SETTLED).some((l) => (l.errorsPct ?? 0) > 0) && steady(probes, (l) => l.latencyMs?.p50);

// The probe at rest once the knee is bracketed (./session.js settle): the recovery's last probe
// and up to SETTLE_PROBES more, back to back; drift is claimed only when SETTLED of them in a
// row answer slower than before the search and steadily, their fastest answers within SPREAD
// of each other. A window of recent work emptying answers faster probe after probe, out of the
// band before they run out: no claim. (A service whose requests cost more for each one of the
// last 10 s was once called drifting two probes after its recovery, 4 s into its window.)
const SETTLE_PROBES = 6;
const steadyFastest = (probes) => steady(probes, (l) => l.latencyMs?.min);

// A service at rest that keeps slowing: RISING probes in a row, each slower at its fastest
// answer than the one before by RISE or more. It is never steady (40, 50, 60, 70 ms at rest are
// never within SPREAD of each other), so the steady rule alone never called it drift, and the
// search went on measuring a moving system (issue 84).
const RISING = 4;
const RISE = 0.05;
const rose = (a, b) => a != null && b != null && b > a * (1 + RISE);
function risingFastest(probes) {
  const f = probes.slice(-RISING).map((l) => l?.latencyMs?.min ?? null);
  return f.length === RISING && f.every((v, i) => i === 0 || rose(f[i - 1], v));
}
// The last probe slower than the one before it (a series that may still be rising).
const stillRising = (probes) =>
  probes.length >= 2 && rose(probes.at(-2)?.latencyMs?.min ?? null, probes.at(-1)?.latencyMs?.min ?? null);

// Probes until the service answers as before, or the wait is over, or it has settled slower
// than before (settledSlower: no wait helps), or `stop()` says no wait can help. Returns { ok,
// waitedS, probes, last: { p50, errorsPct }, baseline: { p50, errorsPct }, settled, text, at:
// the last probe }.
async function waitRecovery({ probe, baseline, maxWaitS = WAIT_S, now = Date.now, stop = () => false }) {
  const t0 = now();
  const seen = [];
  for (;;) {
    const last = await probe();
    seen.push(last);
    const probes = seen.length;
    const waitedS = Math.round((now() - t0) / 100) / 10;
    const ok = recoveredFrom(baseline, last);
    const settled = !ok && settledSlower(seen);
    const rising = !ok && !settled && risingFastest(seen);
    if (ok || settled || rising || waitedS >= maxWaitS || stop()) {
      const fig = (l) => ({ p50: l?.latencyMs?.p50 ?? null, errorsPct: l?.errorsPct ?? null });
      return {
        ok,
        waitedS,
        probes,
        last: fig(last),
        baseline: fig(baseline),
        settled,
        rising,
        at: last,
        seen,
        text: ok
          ? `recovered in ${waitedS} s (${probes} probe(s): median ${fig(last).p50} ms, ${fig(baseline).p50} ms before the search)`
          : `not recovered after ${waitedS} s (${probes} probe(s)${settled ? `, steady for the last ${STEADY_S} s` : ''}${rising ? `, the last ${RISING} each slower than the one before` : ''}: median ${fig(last).p50 ?? '-'} ms and ${fig(last).errorsPct ?? '-'}% errors, against ${fig(baseline).p50 ?? '-'} ms and ${fig(baseline).errorsPct ?? 0}% before the search)`,
      };
    }
  }
}

module.exports = {
  recoveredFrom,
  settledSlower,
  waitRecovery,
  probeRate,
  PROBE_S,
  WAIT_S,
  RULE,
  SETTLED,
  STEADY_S,
  SETTLE_PROBES,
  steadyFastest,
  risingFastest,
  stillRising,
  RISING,
  RISE,
};
