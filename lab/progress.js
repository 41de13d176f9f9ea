'use strict';

// The live line of a run, as a pure function of what is known so far. Elapsed time and the
// current phase come from the lab's clock every second; the counts and p95 come from
// Artillery's most recent 10 s interval.
function progressLine({ elapsedS, totalS, phases, totals, lastInterval }) {
  let t = 0;
  let phase = phases[phases.length - 1];
  let index = phases.length - 1;
  let rate = null;
  for (const [i, ph] of phases.entries()) {
    if (elapsedS < t + ph.duration) {
      phase = ph;
      index = i;
      const from = ph.arrivalCount !== undefined ? ph.arrivalCount / ph.duration : ph.arrivalRate;
      const to = ph.rampTo ?? from;
      rate = from + ((to - from) * (elapsedS - t)) / ph.duration;
      break;
    }
    t += ph.duration;
  }
  const p95 = lastInterval && lastInterval.summaries && lastInterval.summaries['http.response_time'];
  const parts = [
    `[${clock(elapsedS)} / ${clock(totalS)}]`,
    `phase ${index + 1}/${phases.length} ${phase.name}`,
    rate !== null ? `rate ${Math.round(rate)}/s` : 'finishing',
    `done ${totals.completed}`,
    `pending ${Math.max(0, totals.pending)}`,
    `errors ${totals.errors}`,
    `p95 ${p95 ? `${Math.round(p95.p95)} ms` : '-'} (last 10 s)`,
  ];
  return parts.join(' | ');
}

function clock(s) {
  const v = Math.max(0, Math.round(s));
  const mmss = `${String(Math.floor(v / 60) % 60).padStart(v >= 3600 ? 2 : 1, '0')}:${String(v % 60).padStart(2, '0')}`;
  return v >= 3600 ? `${Math.floor(v / 3600)}:${mmss}` : mmss;
}

// Running totals from the intervals seen so far.
function totalsFrom(intervals) {
  let created = 0;
  let completed = 0;
  let failed = 0;
  let errors = 0;
  for (const iv of intervals) {
    const c = iv.counters || {};
    created += c['vusers.created'] || 0;
    completed += c['vusers.completed'] || 0;
    failed += c['vusers.failed'] || 0;
    for (const [k, v] of Object.entries(c)) if (k.startsWith('errors.')) errors += v;
  }
  return { created, completed, pending: created - completed - failed, errors };
}

module.exports = { progressLine, totalsFrom, clock };
