'use strict';

// What one run's figures say in words, each by a stated rule (its `rule`), as the studies'
// findings are (lab/analysis/findings.js): pure functions of summary.json, so a report prints
// the finding beside its rule and a test reaches each from a crafted summary.
//
// Each rule returns a finding { id, text, rule } or null; runFindings runs them all.

const RULES = [restarted];

// A process the supervisor restarted during the run: every answer it could not give while
// it was down (a 502 from the balancer, a reset) belongs to it, not to the load.
function restarted(s) {
  const rows = (s.nodes?.rows || []).filter((r) => r.restarts > 0);
  if (!rows.length) return null;
  const each = rows.map((r) => {
    const codes = Object.entries(r.exitCodes || {})
      .map(([c, n]) => (n === r.restarts ? `exit code ${c}` : `exit code ${c} x${n}`))
      .join(', ');
    return `${r.node} exited and was restarted ${r.restarts} time(s)${codes ? ` (${codes})` : ''}`;
  });
  const failed = (s.answersFailed?.count || 0) + (s.requestsFailed || 0);
  const share = failed && s.requestsSent ? `; ${failed} of ${s.requestsSent} requests failed in the run` : '';
  return {
    id: 'restarts',
    text: `${each.join('; ')} during the run${share}: a service that crashes under load, not the deployment, may be what failed them (its logs: logs/ of the state folder)`,
    rule: "a process is reported when its supervisor (pm2) restarted it between the run's start and end, counted from the supervisor's own log",
  };
}

function runFindings(summary) {
  return RULES.map((rule) => rule(summary)).filter(Boolean);
}

module.exports = { runFindings, RULES };
