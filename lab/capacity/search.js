'use strict';

// The search for the highest arrival rate a deployment holds under its SLO, as a pure
// function of `measure(rate) -> level` (./level.js) and, between levels, `recover()`:
//   1. steps up (start, start x factor, ... and --max-rate itself when a step would pass it)
//      until a level breaks the SLO; when the very first level breaks, steps down instead,
//      halving, and --min-rate itself last, until one holds;
//   2. after every level that broke, waits for the service to recover (`recover()`: it answers
//      a light probe as it did before the search) before anything else is measured;
//   3. before bisecting (a bracket wider than `precision`), measures the last level that held
//      again: a service that no longer holds it after the overload (twice: once may be the
//      machine's noise) has changed (its state grew, its queue never drained), and bisecting
//      it would search a different system at every step: the search stops there and says so
//      (hysteresis);
//   4. bisects between the last level that held and the first that broke until they are within
//      `precision` of each other, or until the middle rounds (to 0.1/s, as every rate) to one of
//      the two: a bracket of 1.0/s and 1.1/s has no rate between them;
//   5. with `recheck` (capacity --recheck: choose's sweeps), measures the lowest level that
//      broke once more: one short level broken by a stall bounds the whole search low (a
//      replica broke 187.5/s in a choice's sweep and was said to hold 182.9/s, and held 225/s
//      in a fresh search minutes later), so a break its second measurement takes back bisects
//      on, up to the next level that broke, which is measured once more in turn, and a break
//      measured twice stands. Twice a search at most (RECHECKS): the verification after it
//      (./verify.js) holds the rate for longer and steps down when it does not hold.
// A level the generator could not drive (it launched less than asked, or late) ends the
// search: what lies above it cannot be measured here, and the answer is "at least" the last
// level that held. So does a level that could not run at all (level.failed), a process of the
// deployment that restarted (level.restarts: the service crashed, and every level after it
// would measure a reset service; with a fresh deployment per level it only breaks its level),
// and the search's own bounds: at most `maxLevels` levels, and none started when `limit(rate)`
// says it would not end in the time left.
//   level: { rate, ok (every SLO held), generatorBound (a reason, or null), failed?, restarts?, ... }
//   recover: async (brokeLevel) -> { ok, text, restarts?, drift?, ... }, or null (no wait: a
//            fresh deployment per level, or a search that does not check)
//   limit: (what) -> null, or the reason the next level or recovery may not start
//   noisy: (reference, levels) -> whether other work took more of the machine while these
//          levels ran than at the reference, so that breaking them is no evidence the service
//          changed (./machine.js)
//   atRest: () -> the service at rest slower than before the search (./drift.js rule 1), or
//          null: what the level that held, broken twice after the overload, must agree with to
//          be called a change
//   recheck: whether step 5 runs (false: the search as it was)
//   stopBelow: a rate, or null (capacity --stop-below: choose's sweeps, the rate wanted): a
//          level that breaks at or below it ends the search (stop 'stop-below'), unless
//          `calm(level)` says the machine or the generator may have broken it: whatever held
//          lies under that break, and a verification only steps down from what held, so the
//          count cannot be found to hold the rate; bisecting and verifying it would spend two
//          minutes on a figure no caller uses
// Returns { held, broke, levels, stop, recoveries, again, rechecks }: held and broke bracket the
// capacity (broke null when no level broke it), stop says why the search ended, rechecks (when
// step 5 ran) each rate measured again and whether it held then: [{ rate, held }].
const MAX_LEVELS = 24;
// Step 5's measurements again, at most, a search.
const RECHECKS = 2;

// Every rate the search asks is rounded to 0.1/s.
const roundRate = (r) => Math.round(r * 10) / 10;

async function searchCapacity(
  measure,
  {
    start = 20,
    factor = 2,
    maxRate = 20000,
    precision = 0.05,
    floor = 1,
    maxLevels = MAX_LEVELS,
    recover = null,
    limit = () => null,
    noisy = () => false,
    atRest = () => ({ text: 'no check at rest' }),
    onLevel = () => {},
    onRecovery = () => {},
    stopBelow = null,
    calm = () => true,
    recheck = false,
  } = {},
) {
  const levels = [];
  const recoveries = [];
  const result = (held, broke, stop, more = {}) => ({ held, broke, levels, stop, recoveries, ...more });
  // A bracket still wider than the precision: a bisection follows.
  const wide = (held, broke) => (broke.rate - held.rate) / held.rate > precision;
  // Why the next level may not run (the search's bounds), or null.
  const bounded = (rate) => {
    if (levels.length >= maxLevels) return { kind: 'max-levels', maxLevels };
    const why = limit({ what: 'level', rate });
    return why ? { kind: 'time-limit', text: why } : null;
  };
  // (A level measured again by step 5 says so: given to `measure` too, whose log and saved
  // levels name it, as its third argument: the second is its hold, left to its default.)
  const run = async (rate, mark = {}) => {
    const level = Object.assign(await measure(roundRate(rate), undefined, mark), mark);
    levels.push(level);
    onLevel(level, levels);
    return level;
  };
  // A level that ends the search whatever it measured: it did not run, or the service
  // restarted under it while its state is kept between levels.
  const fatal = (level) => {
    if (level.failed) return { kind: 'level-failed', level };
    if (level.restarts?.length && recover) return { kind: 'restarted', level };
    return null;
  };
  // A break at or below --stop-below, on a calm machine: the search ends there.
  const short = (level) =>
    stopBelow !== null && level.rate <= stopBelow && calm(level)
      ? { kind: 'stop-below', level, rate: stopBelow }
      : null;
  // After a break: the service back to what it was, or the search ends on it.
  const recovered = async (after) => {
    if (!recover) return null;
    const why = limit({ what: 'recovery', rate: after.rate });
    if (why) return { kind: 'time-limit', text: why };
    const r = await recover(after);
    recoveries.push({ after: after.rate, ...r });
    onRecovery(r, after);
    if (r.ok) return null;
    if (r.restarts?.length) return { kind: 'restarted', level: after, recovery: r };
    if (r.drift) return { kind: 'drift', level: after, recovery: r, drift: r.drift };
    return { kind: 'no-recovery', level: after, recovery: r };
  };

  let held = null;
  let broke = null;
  // Up from `first` by `factor`, --max-rate measured when a step reaches it, until a level
  // breaks (broke, then null) or the search ends (why, with no break bounding what held): step
  // 1, and step 5's climb.
  const stepUp = async (first) => {
    broke = null;
    for (let rate = Math.min(first, maxRate); ; rate = Math.min(rate * factor, maxRate)) {
      const bound = bounded(rate);
      if (bound) return bound;
      const level = await run(rate);
      const end = fatal(level);
      if (end) return end;
      if (level.generatorBound) return { kind: 'generator', level };
      if (!level.ok) {
        broke = level;
        return null;
      }
      held = level;
      if (rate >= maxRate) return { kind: 'max-rate', level: held };
    }
  };

  // 1. Steps up from the start.
  const up = await stepUp(start);
  if (up) return result(held, null, up);
  const below = short(broke);
  if (below) return result(held, broke, below);

  // ... or down from a first level that broke, to the floor, the floor itself measured.
  if (!held) {
    const first = broke;
    while (broke.rate > floor) {
      // (Rates are asked to 0.1/s: a floor under it is reached at the lowest rate that rounds
      // below the last one, and the search stops there instead of asking the same rate again.)
      const rate = roundRate(Math.max(floor, broke.rate / factor));
      if (rate >= broke.rate || rate <= 0) break;
      const after = await recovered(broke);
      if (after) return result(null, broke, after);
      const stop = bounded(rate);
      if (stop) return result(null, broke, stop);
      const level = await run(rate);
      const end = fatal(level);
      if (end) return result(null, broke, end);
      if (level.generatorBound) return result(null, broke, { kind: 'generator', level });
      if (level.ok) {
        held = level;
        break;
      }
      broke = level;
      const below = short(level);
      if (below) return result(null, broke, below);
    }
    if (!held) return result(null, broke, { kind: 'first-level', level: first, floor });
  } else if (recover && wide(held, broke)) {
    // 3. The last level that held, again, once the service has recovered from the break.
    // (Not on a fresh deployment per level: each level is the system as it starts. Nor with
    // no bisection to follow, a precision the first bracket meets: the verification measures
    // it again then, after the service settled, and judges the same change.)
    const measureAgain = async (after) => {
      const stopped = await recovered(after);
      if (stopped) return { stopped };
      const stop = bounded(held.rate);
      if (stop) return { stopped: stop };
      const level = await run(held.rate);
      const end = fatal(level);
      return end ? { stopped: end } : { level };
    };
    let again = await measureAgain(broke);
    if (again.stopped) return result(held, broke, again.stopped);
    // Broken once may be a busy machine's stall (a stateless /ping once was, beside a VM
    // cluster booting): the service recovered again, the level measured once more, and only
    // twice broken is it a changed system.
    if (!again.level.ok && !again.level.generatorBound) {
      const once = again.level;
      again = await measureAgain(once);
      if (again.stopped) return result(held, broke, again.stopped);
      // (On a machine other work kept busy, twice broken is no evidence: the bisection goes on
      // from what held. /ping behind nginx with HTTP/2 once broke 100/s twice, p99 955 ms, on a
      // machine running three CPU hogs and four other test files, and was called changed.)
      const rest = !again.level.ok && !again.level.generatorBound && !noisy(held, [once, again.level]) && atRest();
      if (rest) {
        return result(
          held,
          broke,
          { kind: 'hysteresis', level: again.level, first: held, overload: broke, atRest: rest },
          { again: again.level, once },
        );
      }
    }
    if (again.level.ok) held = again.level;
  }

  // 4. Bisection, to the precision or to the rounding of rates, whichever comes first: null, or
  // why the search ended.
  const bisect = async () => {
    while (wide(held, broke)) {
      const mid = roundRate((held.rate + broke.rate) / 2);
      if (mid <= held.rate || mid >= broke.rate) break;
      const stop = bounded(mid);
      if (stop) return stop;
      const level = await run(mid);
      const end = fatal(level);
      if (end) return end;
      if (level.generatorBound) return { kind: 'generator', level };
      if (level.ok) held = level;
      else {
        broke = level;
        const below = short(level);
        if (below) return below;
        const after = await recovered(broke);
        if (after) return after;
      }
    }
    return null;
  };
  const stop = await bisect();
  if (stop) return result(held, broke, stop);
  if (!recheck) return result(held, broke, { kind: 'bracketed' });

  // 5. The lowest level that broke, once more (the service recovered from it, or a level held
  // since): held this time, the bisection goes on up to the next level that broke above it,
  // and that break, now the one bounding the result, is measured once more in turn: RECHECKS
  // at most a search. (Once was not enough: a catalog's sweep broke its first level, 600/s,
  // took back its lowest break, 525/s, bisected up to 581.3/s, p99 3.6 ms, under the 600/s
  // never measured again, and said 581.3/s where a fresh search held 883.3/s for 30 s.)
  const rechecks = [];
  const more = () => (rechecks.length ? { rechecks } : {});
  for (;;) {
    const rate = broke.rate;
    const bound = bounded(rate);
    if (bound) return result(held, broke, bound, more());
    const level = await run(rate, { recheck: true });
    const end = fatal(level);
    if (end) return result(held, broke, end, more());
    if (level.generatorBound) return result(held, broke, { kind: 'generator', level }, more());
    rechecks.push({ rate, held: level.ok });
    if (!level.ok) {
      broke = level;
      const after = await recovered(broke);
      return result(held, broke, after ?? { kind: 'bracketed' }, more());
    }
    // (The break above it that stands: the lowest, the generator's and failed levels aside.)
    const above = levels
      .filter((l) => !l.ok && !l.generatorBound && !l.failed && l.rate > rate)
      .reduce((a, l) => (a === null || l.rate < a.rate ? l : a), null);
    held = level;
    if (above === null) {
      // (None above: the first level broke, or the doubling's only break, taken back. A
      // catalog's sweep broke its first level, 600/s, by a stall, and held everything under
      // it: what it holds lies above, so the search climbs again.)
      // (Up again by `factor` as in step 1, the service recovered from the break it meets.)
      const climbed = (await stepUp(level.rate * factor)) ?? (await recovered(broke));
      if (climbed) return result(held, broke, climbed, more());
    } else broke = above;
    const again = await bisect();
    if (again || rechecks.length >= RECHECKS) return result(held, broke, again ?? { kind: 'bracketed' }, more());
  }
}

module.exports = { searchCapacity, roundRate, MAX_LEVELS, RECHECKS };
