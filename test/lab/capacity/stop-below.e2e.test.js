'use strict';

const { labJson, flagsOf, fixtureApp } = require('../../helper');

// capacity --replicas 1,3 --stop-below 30 (choose's sweeps after a screen, issue 82), on a
// service the lab has never seen whose limit the test sets: the paced app, /work?ms=50, one
// request at a time after a 50 ms timer, so one replica holds 20/s and three 60/s whatever
// else the machine runs. One replica's search breaks at or below 30/s (40/s, then 30/s
// bisected): it stops there, not verified, "under" that rate and out of the fit; three
// replicas hold more than 30/s and are searched and verified as without the flag. Levels of
// 2 s after 1 s of warm-up, one verification of 4 s, a 30% bracket, under p99<1000. With
// --recheck, as choose gives its sweeps: the count that stopped below is not measured again;
// the other's lowest break is, once, and said.
// (Three, not two: two start their search at 3/4 of the 40/s they would hold, 30/s, the
// flag's own rate, and in CI beside five other files that one level broke and rightly ended
// their search there. Three start at 45/s, above the flag's rate, a quarter under their 60/s.)
const PACED = fixtureApp('paced');
const quick = flagsOf({ hold: '2s', warmup: '1s', repetitions: 1, verifyHold: '4s', precision: 0.3, start: 10 });

test('--stop-below 30: one replica stops at its first break at or below 30/s, unverified; three are verified', async () => {
  const { r, out } = await labJson(
    [
      'capacity',
      '/work?ms=50',
      ...flagsOf({ app: PACED, replicas: '1,3', stopBelow: 30, slo: 'p99<1000', recheck: true }),
      ...quick,
    ],
    { ports: 40, first: true, timeoutMs: 300000 },
  );
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  expect(r.code).toBe(0);
  expect(out.settings.stopBelow).toBe(30);
  const [one, three] = out.deployments;
  // A count's levels from the search whose verdict is its row: a count this machine's other
  // work held back is searched once more, in a folder and log of its own ("x3 again"), and
  // the second search's verdict is the row's (../../../lab/capacity/search-again.js). (In CI
  // beside five other files, three replicas were searched twice: the first search's recheck of
  // 67.5/s and the second's were both among the levels of three replicas.)
  const tagOf = (row) => `${row.label.split(':')[0]}${row.searchedAgain || row.remeasured ? ' again' : ''}`;
  const levelsOf = (row) => out.levels.filter((l) => l.deployment === tagOf(row));
  // One replica: its last level broke at or below 30/s, above the 20/s its timer allows; no
  // verification ran, and nothing is said to be its capacity.
  expect(one).toMatchObject({ replicas: 1, maxRate: null, bound: 'stop-below', stopBelow: 30 });
  expect(one.below).toBeLessThanOrEqual(30);
  expect(one.below).toBeGreaterThan(20);
  expect(one.verified).toBeUndefined();
  expect(one.text).toMatch(/^below 30\/s: [\d.]+\/s broke .* stopped there \(--stop-below 30\)/);
  const levelsOfOne = levelsOf(one);
  expect(levelsOfOne.at(-1)).toMatchObject({ rate: one.below, ok: false });
  // Three replicas: searched from what one held, bracketed and verified above 30/s (at most the
  // 60/s their timers allow, a little queue at the limit aside).
  expect(three.replicas).toBe(3);
  expect(three.bound).not.toBe('stop-below');
  expect(three.verified).toMatchObject({ ok: true });
  expect(three.maxRate).toBeGreaterThan(30);
  expect(three.maxRate).toBeLessThanOrEqual(66);
  // Its lowest break measured once more after the bisection, in the log and the levels (and,
  // when it held then, the next break above it in turn: twice at most).
  // (The lowest break above the highest rate that held: the top of the bracket. Not the lowest
  // break of all: the rate that held, measured again after the first break, is a level too,
  // and in CI 45/s held, broke twice measured again on a busy machine, and the bisection went
  // on from it to a bracket of 45 and 56.3/s, as the search does.)
  const levelsOfThree = levelsOf(three);
  // (Those before the first recheck: a recheck that held goes on bisecting above it.)
  const search = levelsOfThree
    .slice(
      0,
      levelsOfThree.findIndex((l) => l.recheck),
    )
    .filter((l) => !l.role);
  const heldMost = Math.max(...search.filter((l) => l.ok).map((l) => l.rate));
  const lowest = Math.min(...search.filter((l) => !l.ok && l.rate > heldMost).map((l) => l.rate));
  expect(three.rechecks[0]).toMatchObject({ rate: lowest, held: expect.any(Boolean) });
  expect(three.rechecks.length).toBeLessThanOrEqual(three.rechecks[0].held ? 2 : 1);
  expect(levelsOfThree.filter((l) => l.recheck).map((l) => ({ rate: l.rate, held: l.ok }))).toEqual(three.rechecks);
  expect(r.stderr).toMatch(
    new RegExp(
      `${tagOf(three)}: ${lowest}/s again \\(the top of the bracket: the lowest rate that broke above the one held, --recheck\\) -> `,
    ),
  );
  expect(one.rechecks).toBeUndefined();
  expect(levelsOfOne.some((l) => l.recheck)).toBe(false);
  expect(r.stderr).toMatch(/x3: starting at [\d.]+\/s \(75% of [\d.]+\/s \(held in its search, not verified\) at 1/);
  // The scaling: one replica under the rate that broke, out of the fit.
  expect(out.scaling.points[0]).toMatchObject({ replicas: 1, maxRate: null, below: one.below });
  expect(out.scaling.points[0].leftOut).toMatch(/--stop-below/);
}, 320000);
