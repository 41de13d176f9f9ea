'use strict';

// The scaling in words, for the terminal and the page.
function scalingText(s) {
  const lines = [`How ${s.deployment} scales with replicas:`];
  for (const p of s.points) {
    lines.push(
      `  ${String(p.replicas).padStart(2)} replica(s): ${p.maxRate === null ? (p.below != null ? `under ${p.below}/s` : 'none') : `${p.maxRate}/s`}${p.leftOut ? `  (left out of the fit: ${p.leftOut})` : ''}`,
    );
  }
  if (!s.fit) {
    lines.push(`  no fit: ${s.fitRefused}`);
    if (s.measured) {
      lines.push(
        `  measured after the sweep, with no fit to predict it: ${s.measured.replicas} replicas, ${s.measured.maxRate === null ? `no rate (${s.measured.leftOut})` : `${s.measured.maxRate}/s`}`,
      );
    }
    return lines.join('\n');
  }
  const f = s.fit;
  const pm = (v, e) => (e != null ? `${v} ± ${e}` : `${v}`);
  lines.push(
    `  the Universal Scalability Law: one replica ${pm(f.lambda, f.se?.lambda)}/s, contention sigma ${pm(f.sigma, f.se?.sigma)}, coherency kappa ${pm(f.kappa, f.se?.kappa)} (${f.dof} degree(s) of freedom)`,
  );
  lines.push(
    f.peak
      ? `  the peak: ${f.peak.replicas} replicas, ${f.peak.rate}/s; past it, more replicas hold less`
      : '  no peak (kappa 0): more replicas always hold more, ever less each',
  );
  if (s.prediction) {
    const iv = s.prediction.low !== null ? ` (95%: ${s.prediction.low} to ${s.prediction.high})` : '';
    lines.push(`  predicted for ${s.prediction.replicas} replicas before measuring them: ${s.prediction.rate}/s${iv}`);
    if (s.measured) {
      lines.push(
        s.measured.maxRate === null
          ? `  measured: no rate (${s.measured.leftOut}): the prediction is unchecked`
          : `  measured: ${s.measured.maxRate}/s, the prediction off by ${s.errorPct}%${s.withinInterval === false ? ', outside its interval' : ''}${s.measured.leftOut ? ` (${s.measured.leftOut})` : ''}`,
      );
    }
  }
  if (s.need) lines.push(`  for ${s.need.rate}/s: ${s.need.text}`);
  return lines.join('\n');
}

module.exports = { scalingText };
