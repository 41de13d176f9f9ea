'use strict';

// The search for the highest arrival rate a deployment holds under its SLO, as a pure
// function of `measure(rate) -> level` (./level.js): steps first (start, start x factor, ...)
// until a level breaks the SLO, then bisection between the last that held and the first that
// broke until they are within `precision` of each other. A level the generator could not
// drive (it launched less than asked, or late) ends the search: what lies above it cannot be
// measured here, and the answer is "at least" the last level that held.
//   level: { rate, ok (every SLO held), generatorBound (a reason, or null), ... }
// Returns { held, broke, levels, stop }: held and broke bracket the capacity (broke null
// when no level broke it), stop says why the search ended.
async function searchCapacity(
  measure,
  { start = 20, factor = 2, maxRate = 20000, precision = 0.05, onLevel = () => {} } = {},
) {
  const levels = [];
  const run = async (rate) => {
    const level = await measure(Math.round(rate * 10) / 10);
    levels.push(level);
    onLevel(level, levels);
    return level;
  };
  let held = null;
  let broke = null;
  let stop = null;
  for (let rate = start; rate <= maxRate; rate *= factor) {
    const level = await run(rate);
    if (level.generatorBound) {
      stop = { kind: 'generator', level };
      break;
    }
    if (!level.ok) {
      broke = level;
      break;
    }
    held = level;
  }
  if (!held && broke) return { held: null, broke, levels, stop: { kind: 'first-level', level: broke } };
  if (!broke) return { held, broke: null, levels, stop: stop ?? { kind: 'max-rate', level: held } };
  while ((broke.rate - held.rate) / held.rate > precision) {
    const level = await run((held.rate + broke.rate) / 2);
    if (level.generatorBound) {
      stop = { kind: 'generator', level };
      break;
    }
    if (level.ok) held = level;
    else broke = level;
  }
  return { held, broke, levels, stop: stop ?? { kind: 'bracketed' } };
}

module.exports = { searchCapacity };
