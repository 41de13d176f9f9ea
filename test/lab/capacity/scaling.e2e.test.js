'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, ownPlace, errorCode, tmpStateDir, ROOT, jsonOf, flagsOf } = require('../../helper');
const { journey, openPage } = require('../../browser');
const { usl } = require('../../../lab/capacity/usl');

// How many replicas (issue 53): capacity --replicas on a service the lab has never seen, whose
// limit the test sets: the paced app (test/fixtures/apps/paced), /work?ms=50 answering one
// request at a time after a 50 ms timer, so each replica holds 20/s and N replicas 20N/s
// whatever else the machine runs (timers fire late, never early). The law fitted to 1 to 4
// replicas, 5 predicted before they are measured, and --need. A short sweep here: levels of 2 s
// after 1 s of warm-up, one verification, a 30% bracket, under p99<1000 (the stalls of a
// machine busy with five other files, a few hundred ms, are under it: under p99<200 two
// replicas once measured 20/s). The bounds follow from the arithmetic: above its 20N/s a level
// at r holds while its 3 s of backlog wait under a second, r <= 20N x 4/3; a count's rate is
// then within (10N, 20N x 4/3], and a count of twice as many replicas holds more.
// The sweep at settings that judge the prediction's error is bench/scaling.js's
// (bench/results/scaling.json).
// (It was a CPU-bound service on replicas capped at 15% of a core: a cap is a ceiling, not a
// floor, and beside five other files the fit or the prediction moved with the machine's load.)
const PACED = path.join(ROOT, 'test', 'fixtures', 'apps', 'paced');
// (--start 40: one replica cannot take it, and the search steps down from it.)
const quick = [...flagsOf({ hold: '2s', warmup: '1s', repetitions: 1, precision: 0.3, start: 40, slo: 'p99<1000' })];
const OVER = 4 / 3;

journey(
  'a sweep of 1 to 4 replicas: each capacity, the law fitted, 5 predicted then measured, the need, the choice from it',
  async () => {
    const r = await lab(
      [
        'capacity',
        '/work?ms=50',
        ...flagsOf({ app: PACED, replicas: '1,2,3,4', predict: 5, need: 60 }),
        // (A choice's unit of cost is a replica's CPU share, and --from reads sweeps of its
        // caps only: a whole core, which the paced replicas never come near.)
        '--cap',
        'replica=100%',
        ...quick,
        '--json',
        ...(await ownPlace({ ports: 70 })),
      ],
      { timeoutMs: 600000, first: true },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    const out = jsonOf(r);
    const s = out.scaling;
    expect(s.deployment).toBe('replicated');
    expect(s.points.map((p) => p.replicas)).toEqual([1, 2, 3, 4]);
    // One replica broke the first level (40/s, twice its 20/s) and was stepped down.
    const one = out.levels.filter((l) => l.replicas === 1);
    expect(one[0]).toMatchObject({ rate: 40, ok: false });
    expect(one.some((l) => l.rate < 40 && l.ok)).toBe(true);
    // Each count N within its own 20N/s: above half of it (an under-report by 2x) and at most
    // what its backlog allows over a level (an over-report past that); twice the replicas hold
    // more.
    for (const p of s.points) {
      const within = p.maxRate > 10 * p.replicas && p.maxRate <= 20 * p.replicas * OVER;
      expect({ replicas: p.replicas, rate: p.maxRate, within }).toEqual({
        replicas: p.replicas,
        rate: p.maxRate,
        within: true,
      });
    }
    const at = (n) => s.points.find((p) => p.replicas === n).maxRate;
    for (const [few, many] of [
      [1, 2],
      [1, 3],
      [1, 4],
      [2, 4],
    ])
      expect(at(many)).toBeGreaterThan(at(few));
    // The law, fitted: one replica's rate about 20/s. (Every count fitted: a count other work
    // held back was searched again, lab/capacity/sweep-again.js; held back twice, this says
    // why rather than a fit of null.)
    expect(s.points.filter((p) => p.leftOut)).toEqual([]);
    for (const k of ['sigma', 'kappa', 'lambda']) expect(typeof s.fit[k]).toBe('number');
    expect(s.fit.lambda).toBeGreaterThan(10);
    expect(s.fit.lambda).toBeLessThanOrEqual(20 * OVER);
    // 5 predicted: the law fitted, at 5, inside its interval, and never over 5 replicas' own
    // bound (the law grows at most linearly: 5 lambda). Not bounded below by a figure of the
    // timers': the law is fitted to what was measured, and each count is judged above by what
    // its timers allow. (A fixed "over 50/s" failed once in CI with every count within its
    // bounds: 17.5, 39.5, 55.5 and 46.3/s, the 4 replicas' verification broken on a machine
    // 97% busy and searched again lower; the law through them peaks at 3.98 replicas, and its
    // 49.3/s at 5 was right for them.)
    const law = (n) => usl(n, s.fit);
    // (The fit's figures are rounded in capacity.json: 1% and 0.1/s for that.)
    const near = (a, b) => Math.abs(a - b) <= 0.01 * Math.abs(b) + 0.1;
    expect(s.prediction).toMatchObject({ replicas: 5 });
    expect({ rate: s.prediction.rate, law: near(s.prediction.rate, law(5)) }).toEqual({
      rate: s.prediction.rate,
      law: true,
    });
    expect(s.prediction.low).toBeLessThanOrEqual(s.prediction.rate);
    expect(s.prediction.high).toBeGreaterThanOrEqual(s.prediction.rate);
    expect(s.prediction.rate).toBeLessThanOrEqual(100 * OVER);
    // --need 60: the fewest replicas the law gives 60/s, or none when it peaks below.
    expect(s.need.rate).toBe(60);
    if (s.need.replicas === null) expect(Math.max(...[...Array(100).keys()].map((i) => law(i + 1)))).toBeLessThan(60.6);
    else {
      expect(law(s.need.replicas)).toBeGreaterThanOrEqual(59.4);
      if (s.need.replicas > 1) expect(law(s.need.replicas - 1)).toBeLessThan(60.6);
    }
    // The prediction was written before 5 replicas were measured, and 5 were measured after.
    const predicted = JSON.parse(fs.readFileSync(path.join(out.resultsDir, 'prediction.json'), 'utf8'));
    const first5 = out.levels.find((l) => l.replicas === 5);
    const level5 = fs.statSync(path.join(first5.dir, 'summary.json')).mtimeMs;
    expect(Date.parse(predicted.at)).toBeLessThan(level5);
    expect(s.measured).toMatchObject({ replicas: 5 });
    expect(s.measured.maxRate).toBeGreaterThan(50);
    // Checked out of sample: the error said is the prediction's against what 5 then held.
    expect(near(s.errorPct, ((s.prediction.rate - s.measured.maxRate) / s.measured.maxRate) * 100)).toBe(true);
    expect(out.deployments.map((d) => d.replicas)).toEqual([1, 2, 3, 4, 5]);

    // The deployment to choose from this sweep (npm run choose --from: nothing measured again):
    // 20/s with 30% headroom (26/s), the count checked by a sustained run.
    const c = await lab(
      [
        'choose',
        '/work?ms=50',
        ...flagsOf({
          app: PACED,
          rate: 20,
          cap: 'replica=100%',
          from: out.resultsDir,
          hold: '8s',
          searchHold: '2s',
          warmup: '1s',
          slo: 'p99<1000',
          json: true,
          // (The autoscaler's run is the choose journey's: test/lab/commands/choose.e2e.test.js.)
          noCheckAutoscale: true,
        }),
        ...(await ownPlace({ ports: 70 })),
      ],
      { timeoutMs: 120000, first: true },
    );
    expect(c.stderr).not.toMatch(/LAB_ERR/);
    const choice = jsonOf(c);
    expect(choice.sweeps[0].dir).toBe(out.resultsDir);
    const [candidate] = choice.candidates;
    // The fewest replicas measured to hold 26/s, from this sweep's own figures: a count was
    // measured to hold it (2 replicas, about 40/s), so it is a measurement, not the curve.
    const holding = s.points.filter((p) => p.maxRate >= 26).map((p) => p.replicas);
    // (Refused: the lab's why, and the sweep's own verdict on ranking, said rather than a
    // bare null. CI run Z refused this sweep once, its why unprinted: a sweep not ranked,
    // most likely, drift unjudged where other programs slowed a probe at rest.)
    if (candidate.replicas == null)
      throw new Error(
        `no candidate from the sweep: ${candidate.refused}\nthe sweep: ${out.notRanked ?? 'ranked'}\n${out.deployments.map((d) => d.text).join('\n')}`,
      );
    expect(candidate).toMatchObject({ from: 'measured', replicas: Math.min(...holding) });
    expect(candidate.fit).not.toBeNull();
    // Checked, and held.
    expect(c.code).toBe(0);
    expect(choice.checks.at(-1).held).toBe(true);
    expect(choice.choice.replicas).toBe(choice.checks.at(-1).replicas);
    expect(choice.choice.replicas - candidate.replicas).toBeLessThanOrEqual(1);
    expect(choice.files).toEqual(expect.arrayContaining(['compose/docker-compose.yml', 'kubernetes/deployment.yml']));
    return out;
  },
  // The page, as a person meets it: the scaling chart drawn with its points.
  async (out, browser) => {
    const seen = await openPage(browser, path.join(out.resultsDir, 'capacity.html'), 'capacity-scaling-run');
    expect(seen.problems).toEqual([]);
    const chart = seen.charts.find((c) => /with N replicas/.test(c.title));
    expect(chart.marks).toBeGreaterThanOrEqual(1);
  },
  // (Its replicas capped: control groups, as root.)
  { timeoutMs: 720000, needs: 'cgroups' },
);

test('bad input: a sweep of one-process deployments, a prediction at a count measured, too few counts', async () => {
  const where = ['--state-dir', tmpStateDir()];
  for (const [args, re, code] of [
    [
      ['--replicas', '1,2,3,4', '--deployments', 'single'],
      /--deployments single: has one process/,
      'LAB_ERR_FLAG_VALUE',
    ],
    [['--replicas', '1,2,3,4', '--predict', '4'], /--predict 4: one of the counts measured/, 'LAB_ERR_FLAG_VALUE'],
    [['--replicas', '1,2', '--need', '100'], /a fit needs 4 replica counts at least/, 'LAB_ERR_FLAG_VALUE'],
    [['--predict', '6'], /--predict needs --replicas: .*add --replicas 1,2,3,4/, 'LAB_ERR_FLAG_NEEDS'],
    [['--replicas', '0,1'], /expected replica counts/, 'LAB_ERR_INVALID_VALUE'],
  ]) {
    const r = await lab(['capacity', 'ping', ...args, ...where]);
    expect({ args, exit: r.code, code: errorCode(r.stderr) }).toEqual({ args, exit: 2, code });
    expect(r.stderr).toMatch(re);
  }
});
