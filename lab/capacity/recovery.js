'use strict';

// Whether a service has recovered from a level that broke its SLO, before the search measures
// anything else: a light probe (a few arrivals a second for PROBE_S seconds, the same requests
// as the levels) answered as it was before the search began. A real service under overload
// may never come back (its state grew, its backlog never drained), and a search that goes on
// measures a different system at every step: a stateful service once got capacity "none" in
// all four deployments, every bisection level breaking after the first overload, unnoticed.
//
// The rule: the probe had no more errors than the baseline's, and its median answer was at
// most SLOWER times the baseline's, or BY_MS more: the smaller differences are a busy
// machine's noise (at 2x or 20 ms, a replica sweep beside three other test files read a
// service that had recovered as one that had not). A service that changed less than that is
// still caught: the level that held is measured again before bisecting (./search.js). The
// probes are repeated, back to back, for at most the wait (--recovery-wait, 60 s by default).
const PROBE_S = 2;
const SLOWER = 3;
const BY_MS = 50;
const WAIT_S = 60;

const RULE = `a probe of ${PROBE_S} s answered with no more errors than before the search and a median at most ${SLOWER}x the one before (or ${BY_MS} ms more)`;

// The probe's rate: light beside the search's first level, at least 1 a second.
const probeRate = (start) => Math.max(1, Math.min(10, Math.round(start / 10)));

// Whether `probe` answered as `baseline` did.
function recoveredFrom(baseline, probe) {
  if (!probe || !(probe.answered > 0)) return false;
  if ((probe.errorsPct ?? 0) > (baseline?.errorsPct ?? 0)) return false;
  const before = baseline?.latencyMs?.p50;
  const now = probe.latencyMs?.p50;
  if (before == null || now == null) return true;
  return now <= Math.max(SLOWER * before, before + BY_MS);
}

// Probes until the service answers as before, or the wait is over. Returns { ok, waitedS,
// probes, last: { p50, errorsPct }, baseline: { p50, errorsPct }, text }.
async function waitRecovery({ probe, baseline, maxWaitS = WAIT_S, now = Date.now }) {
  const t0 = now();
  let probes = 0;
  for (;;) {
    const last = await probe();
    probes += 1;
    const waitedS = Math.round((now() - t0) / 100) / 10;
    const ok = recoveredFrom(baseline, last);
    if (ok || waitedS >= maxWaitS) {
      const fig = (l) => ({ p50: l?.latencyMs?.p50 ?? null, errorsPct: l?.errorsPct ?? null });
      return {
        ok,
        waitedS,
        probes,
        last: fig(last),
        baseline: fig(baseline),
        text: ok
          ? `recovered in ${waitedS} s (${probes} probe(s): median ${fig(last).p50} ms, ${fig(baseline).p50} ms before the search)`
          : `not recovered after ${waitedS} s (${probes} probe(s): median ${fig(last).p50 ?? '-'} ms and ${fig(last).errorsPct ?? '-'}% errors, against ${fig(baseline).p50 ?? '-'} ms and ${fig(baseline).errorsPct ?? 0}% before the search)`,
      };
    }
  }
}

module.exports = { recoveredFrom, waitRecovery, probeRate, PROBE_S, WAIT_S, RULE, SLOWER, BY_MS };
