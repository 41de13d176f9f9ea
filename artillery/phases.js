'use strict';

const { SCENARIOS, paramsOf } = require('./scenarios');

// Turns one row of the scenario table into Artillery phases.
// options: { scale: multiplies every duration, rateScale: multiplies every rate,
//            durationS: overrides the constant (endurance) length before scaling }
const shapes = {
  ramp: (s, p) => [{ name: `ramp 0 to ${p.peak}/s`, duration: s.durationS, arrivalRate: 0, rampTo: p.peak }],
  spikes: (s, p) => {
    const phases = [];
    for (let i = 1; i <= s.spikes; i++) {
      phases.push({ name: `base ${p.base}/s`, duration: s.baseS, arrivalRate: p.base });
      phases.push({ name: `spike ${i}: ${p.spike}/s`, duration: s.spikeS, arrivalRate: p.spike });
    }
    phases.push({ name: `base ${p.base}/s`, duration: s.baseS, arrivalRate: p.base });
    return phases;
  },
  constant: (s, p, o) => [{ name: `constant ${p.rate}/s`, duration: o.durationS ?? s.durationS, arrivalRate: p.rate }],
};

// Artillery takes whole seconds and whole arrival rates (it asserts on 0.5). A constant
// phase at a fractional rate becomes `arrivalCount` arrivals spread evenly over the phase;
// a ramp's ends are rounded to whole rates.
// (An Artillery script's own phases too: a pause has no arrivals, and an arrivalCount scales
// with both factors, its rate with --rate-scale.)
function scalePhase(ph, scale = 1, rateScale = 1) {
  const duration = Math.max(1, Math.round(ph.duration * scale));
  const name = rateScale !== 1 ? `${ph.name} x${rateScale}` : ph.name;
  if (ph.pause) return { name, duration, arrivalRate: 0, pause: true };
  if (ph.arrivalCount !== undefined) {
    return { name, duration, arrivalCount: Math.max(1, Math.round(ph.arrivalCount * scale * rateScale)) };
  }
  const rate = ph.arrivalRate * rateScale;
  if (ph.rampTo !== undefined) {
    return { name, duration, arrivalRate: Math.round(rate), rampTo: Math.max(1, Math.round(ph.rampTo * rateScale)) };
  }
  if (Number.isInteger(rate)) return { name, duration, arrivalRate: rate };
  return { name, duration, arrivalCount: Math.max(1, Math.round(rate * duration)) };
}

function buildPhases(endpoint, scenario, { scale = 1, rateScale = 1, durationS } = {}) {
  const s = SCENARIOS[scenario];
  return shapes[s.shape](s, paramsOf(s, endpoint), { durationS }).map((ph) => scalePhase(ph, scale, rateScale));
}

// The target arrival rate of a generated phase at its start and end (per second).
function phaseRates(ph) {
  if (ph.arrivalCount !== undefined) return { from: ph.arrivalCount / ph.duration, to: ph.arrivalCount / ph.duration };
  return { from: ph.arrivalRate, to: ph.rampTo ?? ph.arrivalRate };
}

module.exports = { buildPhases, phaseRates, scalePhase };
