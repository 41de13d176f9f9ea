'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const capacityPlan = require('../../../lab/capacity/plan');
const { refusalOf } = require('../../helper');
const { countsFor, moreCounts, machineCount, curveOf } = require('../../../lab/capacity/counts-for');

// capacity --replicas-for R (lab/capacity/counts-for.js, issue 82): after the counts given, the
// one where R is expected to land and the one above it, from the first two counts measured.
const row = (replicas, maxRate, o = {}) => ({ replicas, maxRate, ...o });

test('the curve from two points: linear when they scale linearly, bent by the contention they show, never better than linear', () => {
  expect(curveOf(row(1, 20), row(2, 40)).at(5)).toBeCloseTo(100);
  const bent = curveOf(row(1, 20), row(2, 30));
  expect(bent.sigma).toBeCloseTo(1 / 3);
  expect(bent.at(2)).toBeCloseTo(30);
  expect(bent.at(4)).toBeCloseTo(40);
  // Two replicas holding more than twice one: no better than linear.
  expect(curveOf(row(1, 20), row(2, 50)).at(4)).toBeCloseTo(80);
});

test('the counts added bracket where the rate lands: that count and the one above, never one measured', () => {
  // 20/s a replica, linear: 130/s lands at 7; 7 and 8 measured.
  expect(countsFor([row(1, 20), row(2, 40)], 130, 32)).toEqual({
    counts: [7, 8],
    text: '1 and 2 replica(s) held 20/s and 40/s: 7 replica(s) expected to hold 130/s (140/s); measuring 7 and 8 too',
  });
  // Bent: 1 holds 20, 2 hold 30; 40/s at 4 replicas.
  expect(countsFor([row(1, 20), row(2, 30)], 40, 32).counts).toEqual([4, 5]);
  // The rate lands at 2: only 3 is new.
  expect(countsFor([row(1, 20), row(2, 40)], 35, 32).counts).toEqual([3]);
  // At 1: nothing new; the sweep is done at 2 counts.
  expect(countsFor([row(1, 50), row(2, 100)], 40, 32)).toMatchObject({ counts: [] });
  expect(countsFor([row(1, 50), row(2, 100)], 40, 32).text).toMatch(
    /1 replica\(s\) expected to hold 40\/s .*no count left to measure$/,
  );
});

test('past what the allowed counts are expected to hold: the largest allowed, said', () => {
  const r = countsFor([row(1, 20), row(2, 30)], 100, 6);
  expect(r.counts).toEqual([6]);
  expect(r.text).toMatch(
    /100\/s is past what up to 6 replica\(s\) are expected to hold \(45\/s at 6\); measuring 6 too$/,
  );
});

test('no aim without two verified counts: an "at least" is never a point to aim from', () => {
  expect(countsFor([row(1, 20), row(2, 40, { atLeast: true })], 130, 32)).toEqual({
    counts: [],
    text: 'no count added: 130/s needs two counts measured with a verified rate to aim at',
  });
  expect(countsFor([row(1, null), row(2, 40)], 130, 32).counts).toEqual([]);
  // The two first verified counts, whatever the order the rows came in.
  expect(countsFor([row(2, 40), row(1, 20), row(3, 55)], 130, 32).counts).toEqual([7, 8]);
  // A count stopped below --stop-below aims by what its search held (it has no capacity: the
  // aim is where to measure, not a figure).
  const stopped = row(1, null, { bound: 'stop-below', below: 22, held: { rate: 20 } });
  expect(countsFor([stopped, row(2, 40)], 130, 32).counts).toEqual([7, 8]);
});

test("the machine's bound: replicas at their cap with a core left over; uncapped, a core each", () => {
  expect(machineCount(25, 2)).toBe(4);
  expect(machineCount(50, 2)).toBe(2);
  expect(machineCount(100, 2)).toBe(1);
  expect(machineCount(15, 8)).toBe(46);
  expect(machineCount(null, 4)).toBe(3);
});

test('moreCounts: none without --replicas-for; with it, the counts, and why said', () => {
  const said = [];
  expect(moreCounts({ countsFor: null }, [row(1, 20), row(2, 40)], (t) => said.push(t))).toEqual([]);
  expect(said).toEqual([]);
  expect(moreCounts({ countsFor: 130, maxCount: 32 }, [row(1, 20), row(2, 40)], (t) => said.push(t))).toEqual([7, 8]);
  expect(said).toEqual([expect.stringMatching(/^--replicas-for 130: 1 and 2 replica\(s\) held/)]);
});

test('capacity --replicas-for: planned with its bound and said; beside --predict or --need refused', () => {
  const where = () => ['--state-dir', fs.mkdtempSync(path.join(os.tmpdir(), 'counts-for-'))];
  const p = capacityPlan.plan(['/x', '--replicas', '1,2', '--replicas-for', '130', '--cap', 'replica=25%', ...where()]);
  expect(p.countsFor).toBe(130);
  expect(p.maxCount).toBe(Math.min(32, machineCount(25)));
  expect(
    capacityPlan.plan(['/x', '--replicas', '1,2', '--replicas-for', '130', '--max-replicas', '3', ...where()]).maxCount,
  ).toBe(Math.min(3, machineCount(null)));
  const text = capacityPlan.planText(p);
  expect(text).toMatch(
    /at 1, 2 replicas, then the count where 130\/s is expected to land, and the one above it .*\(--replicas-for; at most \d+\)/,
  );
  // Two searches more in the plan's bound.
  const fixed = capacityPlan.plan(['/x', '--replicas', '1,2', '--cap', 'replica=25%', ...where()]);
  expect(text).toMatch(/\(4 search\(es\)/);
  expect(capacityPlan.planText(fixed)).toMatch(/\(2 search\(es\)/);
  for (const f of [
    ['--predict', '6'],
    ['--need', '50'],
  ])
    expect(
      refusalOf(() => capacityPlan.plan(['/x', '--replicas', '1,2,3,4', '--replicas-for', '130', ...f, ...where()])),
    ).toMatchObject({
      code: 'LAB_ERR_FLAGS_EXCLUDE',
      exit: 2,
      message: expect.stringMatching(new RegExp(`^${f[0]} and --replicas-for exclude each other`)),
    });
});
