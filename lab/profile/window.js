'use strict';

const { phaseRates } = require('../../artillery/phases');

// When a run is profiled (--profile): a stated window of its load, in seconds from its first
// phase. Given (--profile-window 20-30), or the busiest SECONDS of the plan: the window with
// the most arrivals asked, and among windows within TIE of that (an endurance run's constant
// rate ties everywhere), the one nearest the middle of the run, away from its start and its
// end. A ramp is profiled at its top, a spike over its spike, an endurance run in its steady
// middle. A closed loop (no rates) is profiled in its middle.
const SECONDS = 10;
const TIE = 0.05;

// The rate asked at time t (s) of the plan.
function rateAt(phases, t) {
  let start = 0;
  for (const ph of phases) {
    if (t < start + ph.duration) {
      const { from, to } = phaseRates(ph);
      return from + ((to - from) * (t - start)) / ph.duration;
    }
    start += ph.duration;
  }
  return 0;
}

// -> { fromS, toS, rule } (toS - fromS at most `seconds`, inside the plan).
function profileWindow(phases, { seconds = SECONDS, given = null } = {}) {
  const total = phases.reduce((a, ph) => a + ph.duration, 0);
  if (given) {
    if (given.toS > total) throw new RangeError(`the window ends at ${given.toS} s, after the run's ${total} s`);
    return { ...given, rule: 'as given (--profile-window)' };
  }
  const len = Math.min(seconds, total);
  const rated = phases.some((ph) => phaseRates(ph).from > 0 || phaseRates(ph).to > 0);
  const middle = (total - len) / 2;
  if (!rated) return { fromS: round(middle), toS: round(middle + len), rule: `the middle ${len} s of the run` };
  // Arrivals asked in each window starting at a whole second (and the last one that fits).
  const starts = [];
  for (let s = 0; s + len <= total + 1e-9; s += 1) starts.push(s);
  if (starts.at(-1) !== total - len) starts.push(total - len);
  const asked = (s) => {
    let n = 0;
    for (let t = s; t < s + len; t += 0.25) n += rateAt(phases, t + 0.125) * 0.25;
    return n;
  };
  const counts = starts.map(asked);
  const best = Math.max(...counts);
  const close = starts.filter((s, i) => counts[i] >= best * (1 - TIE));
  const pick = close.reduce((a, s) => (Math.abs(s - middle) < Math.abs(a - middle) ? s : a));
  return {
    fromS: round(pick),
    toS: round(pick + len),
    rule: `the busiest ${len} s of the plan (the most arrivals asked; of windows within ${TIE * 100}% of the most, the nearest the run's middle)`,
  };
}

const round = (v) => Math.round(v * 10) / 10;

// --profile-window FROM-TO (seconds into the run).
function parseWindow(text) {
  const m = /^(\d+(?:\.\d+)?)-(\d+(?:\.\d+)?)$/.exec(String(text).trim());
  if (!m) throw Object.assign(new Error('no window'), { reason: 'not FROM-TO' });
  if (!(Number(m[2]) > Number(m[1])))
    throw Object.assign(new Error('no window'), { reason: `it ends at ${m[2]} s, before it begins at ${m[1]} s` });
  if (Number(m[2]) - Number(m[1]) > 600) throw Object.assign(new Error('too long'), { reason: 'at most 600 s' });
  return { fromS: Number(m[1]), toS: Number(m[2]) };
}

module.exports = { profileWindow, parseWindow, SECONDS };
