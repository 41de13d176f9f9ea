'use strict';

const fs = require('node:fs');

// A short Markdown summary of a run for a CI job's page ($GITHUB_STEP_SUMMARY, which GitHub
// Actions renders): the headline, the percentiles, the requests by name, the thresholds, the
// report's path. Appended, as several steps may write there. Pure text; `appendStepSummary`
// writes it when the variable is set.

const cell = (v) => String(v ?? '-').replace(/\|/g, '\\|');

function stepSummary(s, { reportFile = null } = {}) {
  const dep = s.deployment ? s.deployment.label || s.deployment.name : s.target || 'external target';
  const crossed = (s.thresholds || []).filter((t) => !t.ok && !t.optional);
  const verdict =
    s.status !== 'completed'
      ? `the run ${s.status}`
      : crossed.length
        ? `${crossed.length} threshold(s) crossed`
        : 'all held';
  const lines = [
    `### ${cell(s.endpoint)} ${cell(s.scenario)} on ${cell(dep)}: ${verdict}`,
    '',
    `${s.requestsCompleted ?? 0} answers of ${s.requestsSent ?? s.scenariosLaunched ?? 0} sent in ${s.durationS ?? '-'} s, ${s.requestsFailed ?? 0} failed; generator ${cell(s.generator?.name)}.`,
    '',
  ];
  const t = s.responseTimeMs;
  if (t) {
    lines.push('| p50 ms | p90 ms | p95 ms | p99 ms | max ms |', '|---:|---:|---:|---:|---:|');
    lines.push(`| ${t.p50} | ${t.p90} | ${t.p95} | ${t.p99} | ${t.max} |`, '');
  }
  if (s.requests?.length) {
    lines.push('| request | sent | answered | p50 ms | p99 ms |', '|---|---:|---:|---:|---:|');
    for (const r of s.requests)
      lines.push(
        `| ${cell(r.name)} | ${r.launched} | ${r.completed} | ${r.responseTimeMs?.p50 ?? '-'} | ${r.responseTimeMs?.p99 ?? '-'} |`,
      );
    lines.push('');
  }
  if (s.thresholds?.length) {
    lines.push('| threshold | measured | verdict |', '|---|---:|---|');
    for (const x of s.thresholds)
      lines.push(
        `| \`${cell(x.text)}\` | ${x.value === null || x.value === undefined ? '-' : `${x.value}${x.unit || ''}`} | ${x.ok ? 'held' : x.optional ? 'crossed (optional)' : '**crossed**'} |`,
      );
    lines.push('');
  }
  if (reportFile) lines.push(`Report: \`${reportFile}\``, '');
  return `${lines.join('\n')}\n`;
}

// Appends to the file $GITHUB_STEP_SUMMARY names, when it names one; returns whether it did.
function appendStepSummary(text, env = process.env) {
  const file = env.GITHUB_STEP_SUMMARY;
  if (!file) return false;
  try {
    fs.appendFileSync(file, text);
    return true;
  } catch {
    return false;
  }
}

module.exports = { stepSummary, appendStepSummary };
