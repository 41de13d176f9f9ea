'use strict';

// The search for the highest arrival rate a deployment holds under its SLO, as a pure
// function of `measure(rate) -> level` (./level.js) and, between levels, `recover()`:
//   1. steps up (start, start x factor, ...) until a level breaks the SLO; when the very first
//      level breaks, steps down instead, halving to `floor`, until one holds;
//   2. after every level that broke, waits for the service to recover (`recover()`: it answers
//      a light probe as it did before the search) before anything else is measured;
//   3. before bisecting, measures the last level that held again: a service that no longer
//      holds it after the overload (twice: once may be the machine's noise) has changed (its
//      state grew, its queue never drained), and bisecting it would search a different system
//      at every step: the search stops there and says so (hysteresis);
//   4. bisects between the last level that held and the first that broke until they are within
//      `precision` of each other.
// A level the generator could not drive (it launched less than asked, or late) ends the
// search: what lies above it cannot be measured here, and the answer is "at least" the last
// level that held.
//   level: { rate, ok (every SLO held), generatorBound (a reason, or null), ... }
//   recover: async (brokeLevel) -> { ok, text, ... }, or null (no wait: a fresh deployment per
//            level, or a search that does not check)
// Returns { held, broke, levels, stop, recoveries, again }: held and broke bracket the capacity
// (broke null when no level broke it), stop says why the search ended.
async function searchCapacity(
  measure,
  {
    start = 20,
    factor = 2,
    maxRate = 20000,
    precision = 0.05,
    floor = 1,
    recover = null,
    onLevel = () => {},
    onRecovery = () => {},
  } = {},
) {
  const levels = [];
  const recoveries = [];
  const run = async (rate) => {
    const level = await measure(Math.round(rate * 10) / 10);
    levels.push(level);
    onLevel(level, levels);
    return level;
  };
  // After a break: the service back to what it was, or the search ends on it.
  const recovered = async (after) => {
    if (!recover) return true;
    const r = await recover(after);
    recoveries.push({ after: after.rate, ...r });
    onRecovery(r, after);
    return r.ok;
  };
  const result = (held, broke, stop, more = {}) => ({ held, broke, levels, stop, recoveries, ...more });

  // 1. Steps up from the start.
  let held = null;
  let broke = null;
  for (let rate = start; rate <= maxRate; rate *= factor) {
    const level = await run(rate);
    if (level.generatorBound) return result(held, null, { kind: 'generator', level });
    if (!level.ok) {
      broke = level;
      break;
    }
    held = level;
  }
  if (!broke) return result(held, null, { kind: 'max-rate', level: held });

  // ... or down from a first level that broke, to the floor.
  if (!held) {
    const first = broke;
    for (let rate = broke.rate / factor; rate >= floor; rate /= factor) {
      if (!(await recovered(broke))) return result(null, broke, noRecovery(broke, recoveries));
      const level = await run(rate);
      if (level.generatorBound) return result(null, broke, { kind: 'generator', level });
      if (level.ok) {
        held = level;
        break;
      }
      broke = level;
    }
    if (!held) return result(null, broke, { kind: 'first-level', level: first, floor });
  } else if (recover) {
    // 3. The last level that held, again, once the service has recovered from the break.
    // (Not on a fresh deployment per level: each level is the system as it starts.)
    if (!(await recovered(broke))) return result(held, broke, noRecovery(broke, recoveries));
    let again = await run(held.rate);
    // Broken once may be a busy machine's stall (a stateless /ping once was, beside a VM
    // cluster booting): the service recovered again, the level measured once more, and only
    // twice broken is it a changed system.
    if (!again.ok && !again.generatorBound) {
      if (!(await recovered(again))) return result(held, broke, noRecovery(again, recoveries));
      const once = again;
      again = await run(held.rate);
      if (!again.ok && !again.generatorBound) {
        return result(held, broke, { kind: 'hysteresis', level: again, first: held, overload: broke }, { again, once });
      }
    }
    if (again.ok) held = again;
  }

  // 4. Bisection.
  while ((broke.rate - held.rate) / held.rate > precision) {
    const level = await run((held.rate + broke.rate) / 2);
    if (level.generatorBound) return result(held, broke, { kind: 'generator', level });
    if (level.ok) held = level;
    else {
      broke = level;
      if (!(await recovered(broke))) return result(held, broke, noRecovery(broke, recoveries));
    }
  }
  return result(held, broke, { kind: 'bracketed' });
}

const noRecovery = (broke, recoveries) => ({ kind: 'no-recovery', level: broke, recovery: recoveries.at(-1) });

module.exports = { searchCapacity };
