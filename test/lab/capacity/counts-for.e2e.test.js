'use strict';

const path = require('node:path');
const { lab, ownPlace, ROOT, jsonOf, flagsOf } = require('../../helper');
const { countsFor, machineCount } = require('../../../lab/capacity/counts-for');

// capacity --replicas 1,2 --replicas-for R (issue 82: choose's default sweep), on a service the
// lab has never seen whose limit the test sets: the paced app, /work?ms=50, one request at a
// time after a 50 ms timer, so each replica holds 20/s and N replicas 20N/s whatever else the
// machine runs. After 1 and 2, the sweep must measure where 30/s lands by its own first two
// points (2 replicas when they scaled as paced, 3 or 4 when a busy machine bent them), and the
// one above: the points then hold 30/s somewhere, instead of stopping where they were told.
// Levels of 2 s after 1 s of warm-up, one verification, a 30% bracket, under p99<1000 (as
// test/lab/capacity/scaling.e2e.test.js).
const PACED = path.join(ROOT, 'test', 'fixtures', 'apps', 'paced');
const quick = flagsOf({ hold: '2s', warmup: '1s', repetitions: 1, precision: 0.3, start: 40, slo: 'p99<1000' });

test('--replicas 1,2 --replicas-for 30: the counts where 30/s lands measured after 1 and 2, said, and one holds it', async () => {
  const sweep = flagsOf({ app: PACED, replicas: '1,2', replicasFor: 30, cap: 'replica=25%', json: true });
  const place = await ownPlace({ ports: 70 });
  const r = await lab(['capacity', '/work?ms=50', ...sweep, ...quick, ...place], { timeoutMs: 420000, first: true });
  expect(r.stderr).not.toMatch(/LAB_ERR/);
  const out = jsonOf(r);
  const rows = out.deployments.map((d) => ({ replicas: d.replicas, maxRate: d.maxRate, atLeast: d.atLeast }));
  const [one, two, ...added] = rows;
  expect([one.replicas, two.replicas]).toEqual([1, 2]);
  // The counts added are the rule's on the sweep's own first two points, within the machine's
  // bound for 25% replicas, and the log says where it aimed.
  const rule = countsFor([one, two], 30, Math.min(32, machineCount(25)));
  expect(added.map((x) => x.replicas)).toEqual(rule.counts);
  expect(added.length).toBeGreaterThanOrEqual(1);
  expect(r.stderr).toMatch(
    /replicated: --replicas-for 30: 1 and 2 replica\(s\) held [\d.]+\/s and [\d.]+\/s: \d+ replica\(s\) expected to hold 30\/s/,
  );
  // The answer bracketed: a count measured to hold 30/s (2 replicas hold 40/s, 3 hold 60/s).
  expect(rows.some((x) => x.maxRate >= 30 && !x.atLeast)).toBe(true);
  // Fitted when four counts are good; never fewer points than counts measured.
  expect(out.scaling.points.map((p) => p.replicas)).toEqual(rows.map((x) => x.replicas));
}, 450000);
