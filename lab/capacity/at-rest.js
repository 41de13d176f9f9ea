'use strict';

const { othersRose, othersBusy } = require('./machine');

// A probe at rest against the baseline (the probe after the warm-up, before any level): one
// judgement, the same figures, for the recovery (./recovery.js: is the service back?) and for
// drift (./drift.js: has it changed?). They once read different figures: the recovery a
// median within 2x or 20 ms, drift a fastest answer 1.5x and 5 ms slower; a fast service whose
// median went from 2 to 15 ms while its fastest answer went from 1 to 4.5 ms was then both
// "recovered" and "no drift" (issue 84).
// The figures, each against the baseline's:
//   errors   more than the baseline had;
//   fastest  the fastest answer, FASTEST_X times and FASTEST_MS more (a changed service is
//            slower even at its fastest; a busy machine delays some answers, rarely all);
//   median   MEDIAN_X times and MEDIAN_MS more, judged only on MEDIAN_ANSWERS answers or more
//            (a probe is a few seconds at a light rate: the median of three answers is one of
//            them), said with how many it rests on.
// On a machine busy with other work (other programs took half of it, or a quarter more than
// at the baseline: ./machine.js) the service may only be waiting for a core: the fastest
// answer's band is BUSY_X and BUSY_MS, and the median is the recovery's only (2x and 20 ms, the
// band it always had there): a median slower alone is not called drift on such a machine,
// which the drift's sentence says.
const FASTEST_X = 1.5;
const FASTEST_MS = 5;
const MEDIAN_X = 2;
const MEDIAN_MS = 10;
const MEDIAN_ANSWERS = 8;
const BUSY_X = 3;
const BUSY_MS = 20;
const BUSY_MEDIAN_MS = 20;
const BUSY_OTHERS = 0.5;

const slower = (before, now, times, by) => before != null && now != null && now >= times * before && now >= before + by;

// -> { busy, errors, fastest, median: { from, to, slower } (or null where not known), answers,
//      out: what is out of the band for the recovery, drift: what is out of it for drift }.
// o.quiet: judged by the quiet machine's bands, whatever the machine was doing.
function atRest(baseline, probe, { quiet = false } = {}) {
  const busy = !quiet && (othersRose(baseline, [probe]) || othersBusy([probe]) >= BUSY_OTHERS);
  const errors = (probe?.errorsPct ?? 0) > (baseline?.errorsPct ?? 0);
  const f = [baseline?.latencyMs?.min ?? null, probe?.latencyMs?.min ?? null];
  const m = [baseline?.latencyMs?.p50 ?? null, probe?.latencyMs?.p50 ?? null];
  const answers = probe?.answered ?? null;
  // (The median judged only on enough answers: a probe that says none is judged, as before.)
  const medianKnown = answers === null || answers >= MEDIAN_ANSWERS;
  const fastest = {
    from: f[0],
    to: f[1],
    slower: busy ? slower(f[0], f[1], BUSY_X, BUSY_MS) : slower(f[0], f[1], FASTEST_X, FASTEST_MS),
  };
  const median = {
    from: m[0],
    to: m[1],
    judged: medianKnown,
    slower: medianKnown && slower(m[0], m[1], MEDIAN_X, busy ? BUSY_MEDIAN_MS : MEDIAN_MS),
  };
  const out = [
    ...(errors ? ['errors'] : []),
    ...(fastest.slower ? ['fastest'] : []),
    ...(median.slower ? ['median'] : []),
  ];
  // (On a busy machine, a median slower alone is the machine's as much as the service's.)
  const drift = out.filter((x) => !(busy && x === 'median'));
  return { busy, errors, fastest, median, answers, out, drift };
}

// The figures as a sentence: "its fastest answer went from 1 ms to 4.5 ms, its median from 2 ms
// to 15 ms (of 10 answers)".
function atRestText(a, baseline, probe) {
  if (a.errors && !a.fastest.slower && !a.median.slower)
    return `its errors went from ${baseline?.errorsPct ?? 0}% to ${probe.errorsPct}%`;
  const of = a.answers !== null ? ` (of ${a.answers} answers)` : '';
  return `its fastest answer went from ${a.fastest.from ?? '-'} ms to ${a.fastest.to ?? '-'} ms, its median from ${a.median.from ?? '-'} ms to ${a.median.to ?? '-'} ms${of}`;
}

// Drift that could not be judged (issue 84): on a machine busy with other work, a probe at rest
// slower than the baseline by the quiet machine's bands but not by the busy machine's wider
// ones is no evidence either way: the service changed, or it waited for a core. That is said,
// with how much of the machine other programs took, and the row is not ranked against others
// (./verdict.js notRanked), never taken as clear of drift. -> { text, othersPct } or null.
function unjudged(baseline, probe) {
  if (!baseline || !probe) return null;
  const a = atRest(baseline, probe);
  if (!a.busy || a.drift.length) return null;
  const q = atRest(baseline, probe, { quiet: true });
  if (!q.drift.length) return null;
  const othersPct = Math.round(othersBusy([probe]) * 100);
  return {
    othersPct,
    text: `drift could not be judged: other programs took ${othersPct}% of the machine while a ${probe.rate}/s probe at rest answered slower than before the search (${atRestText(q, baseline, probe)})`,
  };
}

const RULE = `a probe at rest is as before when it has no more errors than the baseline, its fastest answer is under ${FASTEST_X}x or ${FASTEST_MS} ms slower, and its median (judged on ${MEDIAN_ANSWERS} answers or more) under ${MEDIAN_X}x or ${MEDIAN_MS} ms slower; on a machine busy with other work, ${BUSY_X}x or ${BUSY_MS} ms for the fastest, ${MEDIAN_X}x or ${BUSY_MEDIAN_MS} ms for the median, and a median slower alone is not drift there`;

module.exports = {
  atRest,
  atRestText,
  unjudged,
  RULE,
  FASTEST_X,
  FASTEST_MS,
  MEDIAN_X,
  MEDIAN_MS,
  MEDIAN_ANSWERS,
  BUSY_X,
  BUSY_MS,
};
