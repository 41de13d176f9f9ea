'use strict';

// How busy this machine was while a level ran, and from when it counts as the limit: one
// figure for a deployment's row, for the sentence over all rows (./verdict.js) and for the
// evidence of drift (./drift.js: a service that answers slower on a machine this busy may only
// be waiting for a core).
// The machine counts as the limit from this share of its cores busy (every node's CPU and the
// generator's): past it, the kernel's own work for the connections (loopback TCP, not counted
// in any process) takes the rest. /ping on single broke at 3,100/s with the processes' CPU at
// 86% of both cores, the generator 85% of one.
const MACHINE_BUSY = 0.85;

// A level's busy share, 0 to 1: the run's processes' CPU (the generator's included) or the
// whole machine's cores (every program, the kernel's work for the connections included:
// /proc/stat), whichever is higher. (Once the rows used one and the sentence the other, and
// they disagreed.)
const levelBusy = (l) => Math.max(l?.machineShare ?? 0, l?.coresShare ?? 0);
// Over the levels that tell a limit (the level that broke, the runs at the rate verified).
const machineBusy = (levels) => Math.max(0, ...levels.filter(Boolean).map(levelBusy));

// What else this machine was doing while a level ran, 0 to 1: its cores' busy share less the
// run's own processes'. A service slower than it was at a reference level, while other
// programs took a quarter of the machine more than they did then, may only have waited for a
// core: no drift is claimed on it. (Its own processes busy are no such doubt: a service whose
// data grew uses more CPU itself; nor is other work as busy both times, which the reference
// measured too.)
const OTHERS_BUSY = 0.25;
const othersBusy = (levels) =>
  Math.max(0, ...levels.filter(Boolean).map((l) => (l.coresShare ?? 0) - (l.machineShare ?? 0)));
const othersRose = (reference, levels) => othersBusy(levels) - othersBusy([reference]) >= OTHERS_BUSY;

// A busy machine holds a deployment back only as long as its processes wait for a core: from
// this share of the time waiting (their mean, at the levels that tell the limit), the machine
// is named the limit; under it, the limit is the deployment's own (a timer, a pool, a lock), and
// the machine's other work took at most about that share off the rate. (A paced service, 50 ms
// a request on a timer, beside five other test files with the cores 90% busy, waited 3-12% of
// the time and broke at its own rate; a CPU-bound one there waits most of it.)
const WAITED = 0.2;
const waitedShare = (levels) => {
  const w = levels
    .filter(Boolean)
    .map((l) => l.waitShare)
    .filter(Number.isFinite);
  return w.length ? Math.max(...w) : null;
};

module.exports = { MACHINE_BUSY, OTHERS_BUSY, WAITED, levelBusy, machineBusy, othersBusy, othersRose, waitedShare };
