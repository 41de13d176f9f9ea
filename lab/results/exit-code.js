'use strict';

// A run's exit code, from its summary, as Artillery ends: 0 when all held; 1 when the run did
// not complete or a threshold (its script's checks, --ensure) was crossed; 21 when the expect
// plugin's checks failed (Artillery's own code for it) and no threshold was crossed.
// --generator artillery runs a user's script and follows Artillery's own verdict (its checks,
// its expectations, its exit code), with the lab's --ensure on top. An optional threshold (an
// Artillery condition with strict: false) is reported and never fails the run.
const EXPECTATIONS_FAILED = 21;

function exitCodeOf(summary) {
  if (summary.status !== 'completed') return 1;
  const crossed = (summary.thresholds || []).some((t) => !t.ok && !t.optional);
  if (crossed) return 1;
  const artillery = summary.artillery?.exitCode;
  if (artillery) return artillery;
  if (summary.expectations?.failed > 0) return EXPECTATIONS_FAILED;
  return 0;
}

module.exports = { exitCodeOf, EXPECTATIONS_FAILED };
