'use strict';

// The final summary as text, laid out like Artillery's report in the course. A pure
// function of summary.json.
function renderSummary(s) {
  const lines = [];
  const dep = s.deployment ? s.deployment.label || s.deployment.name : 'external target';
  lines.push(`${s.endpoint} ${s.scenario} on ${dep}: ${s.status}${s.durationS ? ` after ${s.durationS} s` : ''}`);
  lines.push('');
  lines.push(`Scenarios launched:  ${s.scenariosLaunched}`);
  lines.push(`Scenarios completed: ${s.scenariosCompleted}`);
  lines.push(`Requests completed:  ${s.requestsCompleted}`);
  lines.push(`Mean response/sec:   ${s.meanResponseRate ?? '-'}`);
  if (s.responseTimeMs) {
    const r = s.responseTimeMs;
    lines.push('Response time (msec):');
    for (const k of ['min', 'median', 'p95', 'p99', 'max']) lines.push(`  ${k}: ${r[k]}`);
  } else {
    lines.push(`Response time: ${s.responseTimeNote}`);
  }
  lines.push('Codes:');
  const codes = Object.entries(s.codes);
  if (!codes.length) lines.push('  (none)');
  for (const [k, v] of codes) lines.push(`  ${k}: ${v}`);
  const errors = Object.entries(s.errors);
  if (errors.length) {
    lines.push('Errors:');
    for (const [k, v] of errors) lines.push(`  ${k}: ${v}`);
  }
  lines.push('Phases (arrivals/s, target vs achieved):');
  const w = Math.max(...s.phases.map((p) => p.name.length));
  for (const p of s.phases) {
    const t =
      p.targetRate.from === p.targetRate.to ? `${p.targetRate.from}` : `${p.targetRate.from}->${p.targetRate.to}`;
    lines.push(
      `  ${p.name.padEnd(w)}  ${String(p.durationS).padStart(4)} s  target ${t.padEnd(9)} achieved ${p.achievedRate ?? '-'}${p.ratio !== null ? ` (${Math.round(p.ratio * 100)}%)` : ''}`,
    );
  }
  if (s.generator) {
    const g = s.generator;
    lines.push(
      `Load generator: CPU mean ${g.cpuPctMean}%, max ${g.cpuPctMax}% of a core; memory ${g.rssMiBStart} -> ${g.rssMiBEnd} MiB (max ${g.rssMiBMax}${g.rssGrowthMiBPerMin !== null ? `, trend ${g.rssGrowthMiBPerMin} MiB/min` : ''})`,
    );
  }
  lines.push(`  ${s.saturation.verdict}`);
  if (s.resultsDir) lines.push('', `Results: ${s.resultsDir}`);
  return lines.join('\n');
}

module.exports = renderSummary;
