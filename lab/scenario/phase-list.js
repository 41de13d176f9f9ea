'use strict';

const parseDuration = require('../terminal/duration');
const { LIMITS } = require('./limits');

// --phases: the load's shape without a script, as a list of phases, each a constant rate or a
// ramp for a duration: "10/60s" (10 arrivals a second for a minute), "10-20/60s" (a ramp from
// 10 to 20 a second over a minute), comma-separated, in order. What `choose` runs to check the
// autoscaler it writes (a ramp from the target rate to twice it and back, lab/choose/
// autoscale-check.js), and what a user writes for a load of their own shape.
const MAX_PHASES = 20;
const ITEM = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?\/(.+)$/;

// "10-20/60s,20/30s" -> [{ name, duration, arrivalRate, rampTo? }]; throws an Error saying why.
function parsePhases(text) {
  const items = String(text)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  if (!items.length || items.length > MAX_PHASES) throw new Error(`1 to ${MAX_PHASES} phases`);
  let total = 0;
  return items.map((item) => {
    const m = ITEM.exec(item);
    if (!m) throw new Error(`"${item}" is not RATE/DURATION or FROM-TO/DURATION`);
    const from = Number(m[1]);
    const to = m[2] === undefined ? null : Number(m[2]);
    for (const r of [from, to]) {
      if (r !== null && (r > LIMITS.arrivalRate || r < 0))
        throw new Error(`"${item}": a rate is at most ${LIMITS.arrivalRate} a second`);
    }
    if (from === 0 && !to) throw new Error(`"${item}" sends nothing`);
    let duration;
    try {
      duration = parseDuration(m[3], '--phases');
    } catch (err) {
      throw new Error(`"${item}": ${err.message}`, { cause: err });
    }
    total += duration;
    if (total > LIMITS.planS) throw new Error(`the phases last more than ${LIMITS.planS / 3600} h`);
    return to === null
      ? { name: `constant ${from}/s`, duration, arrivalRate: from }
      : { name: `ramp ${from}/s to ${to}/s`, duration, arrivalRate: from, rampTo: to };
  });
}

// The phases as --phases takes them (the inverse of parsePhases, for a child command line).
const phasesText = (phases) =>
  phases
    .map((p) => `${p.arrivalRate}${p.rampTo !== undefined ? `-${p.rampTo}` : ''}/${parseDuration.text(p.duration)}`)
    .join(',');

module.exports = { MAX_PHASES, parsePhases, phasesText };
