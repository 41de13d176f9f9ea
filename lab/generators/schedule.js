'use strict';

const { phaseRates } = require('../../artillery/phases');

// When each arrival of an open-loop run is due, from the same phases Artillery runs
// (constant `arrivalRate`, a ramp to `rampTo`, or `arrivalCount` spread evenly), as
// milliseconds from the start of the run. Arrival k of a phase is due when the phase's
// cumulative rate reaches k: r0 t + (r1 - r0) t^2 / (2 d) = k.

// How many arrivals a phase asks for.
function arrivalsIn(ph) {
  if (ph.arrivalCount !== undefined) return ph.arrivalCount;
  const { from, to } = phaseRates(ph);
  return Math.round(((from + to) / 2) * ph.duration);
}

// When arrival k (0-based) of a phase is due, in ms from the phase's start.
function dueInPhase(ph, k) {
  if (ph.arrivalCount !== undefined) return (k * ph.duration * 1000) / ph.arrivalCount;
  const { from, to } = phaseRates(ph);
  const a = (to - from) / ph.duration;
  if (Math.abs(a) < 1e-12) return (k * 1000) / from;
  return ((-from + Math.sqrt(from * from + 2 * a * k)) / a) * 1000;
}

// The phases' start offsets (ms) and the run's length.
function phaseOffsets(phases) {
  const starts = [];
  let t = 0;
  for (const ph of phases) {
    starts.push(t);
    t += ph.duration * 1000;
  }
  return { starts, totalMs: t };
}

// Every arrival in order as { at (ms from start), phase }; only every `of`-th one starting at
// `shard`, so that several workers share one schedule without overlap. Lazy: a 10-minute
// run at 1,000/s is 600,000 arrivals.
function* arrivals(phases, { shard = 0, of = 1 } = {}) {
  const { starts } = phaseOffsets(phases);
  let n = 0;
  for (const [i, ph] of phases.entries()) {
    const count = arrivalsIn(ph);
    for (let k = 0; k < count; k++, n++) {
      if (n % of !== shard) continue;
      yield { at: starts[i] + dueInPhase(ph, k), phase: i };
    }
  }
}

const totalArrivals = (phases) => phases.reduce((a, ph) => a + arrivalsIn(ph), 0);

const peakRate = (phases) => Math.max(0, ...phases.map((ph) => Math.max(...Object.values(phaseRates(ph)))));

module.exports = { arrivals, arrivalsIn, dueInPhase, phaseOffsets, totalArrivals, peakRate };
