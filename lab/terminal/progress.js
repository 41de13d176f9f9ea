'use strict';

// The live line of a run, as a pure function of what is known so far: elapsed time and the
// current phase from the lab's clock, the counts from the generator's records, the p99 of
// the last second that had answers.
// A signaling run (`participants`) counts participants: connected now, joined so far, and
// the p99 of the last second's connect times.
// A closed loop bounded by a request count (`requests`) has no known end time: its line shows
// how many of them were sent instead.
// elapsedS is null while the generator is still starting (`starting` says what it waits for).
function progressLine({
  elapsedS,
  totalS,
  phases,
  totals: t,
  last,
  closed = false,
  participants = false,
  active = 0,
  requests = null,
  starting = 'starting the load generator',
}) {
  if (elapsedS === null || elapsedS === undefined) {
    return `[${requests ? clock(0) : `${clock(0)} / ${clock(totalS)}`}] | ${starting}`;
  }
  let at = 0;
  let phase = phases[phases.length - 1];
  let index = phases.length - 1;
  let rate = null;
  for (const [i, ph] of phases.entries()) {
    if (elapsedS < at + ph.duration) {
      phase = ph;
      index = i;
      if (!closed) {
        const from = ph.arrivalCount !== undefined ? ph.arrivalCount / ph.duration : ph.arrivalRate;
        const to = ph.rampTo ?? from;
        rate = from + ((to - from) * (elapsedS - at)) / ph.duration;
      }
      break;
    }
    at += ph.duration;
  }
  // Past its planned end a run waits for its last answers: the clock stops at the plan's
  // length, and the wait is shown apart (a line read [0:17 / 0:12] once).
  const over = elapsedS - totalS;
  const parts = [
    requests
      ? `[${clock(elapsedS)}]`
      : over >= 1
        ? `[${clock(totalS)} / ${clock(totalS)} +${clock(over)}]`
        : `[${clock(Math.min(elapsedS, totalS))} / ${clock(totalS)}]`,
    `phase ${index + 1}/${phases.length} ${phase.name}`,
    closed
      ? (requests ? t.launched < requests : elapsedS < totalS)
        ? 'closed loop'
        : 'finishing'
      : rate !== null
        ? `rate ${Math.round(rate)}/s`
        : 'finishing',
    ...(participants
      ? [`connected ${active}`, `joined ${t.completed}`]
      : [
          `sent ${t.launched}${requests ? ` of ${requests}` : ''}`,
          `done ${t.completed}`,
          `pending ${Math.max(0, t.launched - t.completed - t.failed)}`,
        ]),
    `errors ${t.failed}`,
    `${participants ? 'connect ' : ''}p99 ${last && last.p99 !== null && last.p99 !== undefined ? `${fmtMs(last.p99)} ms` : '-'}`,
  ];
  return parts.join(' | ');
}

const fmtMs = (v) => (v >= 100 ? String(Math.round(v)) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

function clock(s) {
  const v = Math.max(0, Math.round(s));
  const mmss = `${String(Math.floor(v / 60) % 60).padStart(v >= 3600 ? 2 : 1, '0')}:${String(v % 60).padStart(2, '0')}`;
  return v >= 3600 ? `${Math.floor(v / 3600)}:${mmss}` : mmss;
}

module.exports = { progressLine, clock };
