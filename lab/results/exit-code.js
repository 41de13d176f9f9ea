'use strict';

// A run's exit code, from its summary, for pipelines: 0 when all held; 99 when a threshold
// (--ensure, its script's checks, Artillery's own as it judged them) was crossed (k6's
// convention, so pipelines that read it already know it); 1 when the run did not complete;
// 21 when the expect plugin's checks failed (Artillery's own code for it) and no threshold was
// crossed; otherwise Artillery's own exit code for a script it ran and failed. An optional
// threshold (an Artillery condition with strict: false) is reported and never fails the run.
// (2, usage, is said before any run: lab/cli.)
const THRESHOLD_CROSSED = 99;
const EXPECTATIONS_FAILED = 21;
// The status of a run that sent requests and had none answered (lab/run/summary.js): failed.
const NO_ANSWER = 'failed (no request was answered';

function exitCodeOf(summary) {
  if (summary.status !== 'completed') return 1;
  const crossed = (summary.thresholds || []).some((t) => !t.ok && !t.optional);
  if (crossed) return THRESHOLD_CROSSED;
  const artillery = summary.artillery?.exitCode;
  if (artillery) return artillery;
  if (summary.expectations?.failed > 0) return EXPECTATIONS_FAILED;
  return 0;
}

module.exports = { exitCodeOf, EXPECTATIONS_FAILED, THRESHOLD_CROSSED, NO_ANSWER };
