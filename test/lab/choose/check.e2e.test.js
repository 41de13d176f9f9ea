'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labJson, flagsOf, fixtureApp, isUp, stateOf } = require('../../helper');
const { onlyWith } = require('../../requires');

// The check of a choice that does not hold (issue 82): the first candidate fails its sustained
// run and the next one is checked, and chosen when it holds. The service is the tests' own
// (test/fixtures/apps/paced): one request at a time of 20 ms (50/s a replica, set by timers),
// until more than 150 requests were served in the last 30 s; then each takes 400 ms (2.5/s).
// So the sweeps' short levels (20/s for 1 s of warm-up and 2 s, 4 s to verify: 100 requests at
// most, each level on a fresh deployment) find both counts holding 20/s, at least; the check
// of one replica holds 10/s for 10 s (about 110 requests) and then, at 13/s (the rate with its
// 30% headroom), crosses 150 within seconds and breaks; two replicas share the same load (about
// 130 each over both runs) and hold it. The machine's speed does not enter: the limits are timers,
// and the SLO, p99<1000, lies far from both of them (20 ms when it holds, seconds of queue when
// each request takes 400 ms at 13/s): under p99<200 one stall of a busy machine (CI with the
// container suite beside it) once broke the check of one replica at 10/s already.
const PACED = fixtureApp('paced');

onlyWith('cgroups')(
  'choose: the first candidate breaks its check at the rate with its headroom; the next is checked, held and chosen',
  async () => {
    const { r, out, place } = await labJson(
      [
        'choose',
        '/work?ms=20&c=1&over=150&slow=400&window=30',
        ...flagsOf({ app: PACED, rate: 10, shapes: 'replicated', replicas: '1,2', cap: 'replica=50%', hold: '10s' }),
        ...['--slo', 'p99<1000', '--slo', 'errors<1%'],
        ...flagsOf({ searchHold: '2s', verifyHold: '4s', warmup: '1s', repetitions: 1, start: 20, maxRate: 20 }),
        ...['--fresh-per-level', '--no-check-autoscale'],
      ],
      { ports: 40, first: true },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect(r.code).toBe(0);
    // Both counts measured to hold the 13/s wanted: 20/s, where the service is not the limit.
    // (In CI, beside five other files, a level of two replicas once broke its SLO at 20/s, the
    // machine's stall, and its search settled at 19/s: still a candidate.)
    const { points } = out.candidates.find((c) => c.shape === 'replicated');
    expect(points.map((p) => p.replicas)).toEqual([1, 2]);
    for (const p of points) expect(p.maxRate ?? p.heldAtLeast).toBeGreaterThanOrEqual(13);
    // The cheaper one checked first: it held the rate, and broke at the rate with its headroom.
    expect(out.checks).toHaveLength(2);
    expect(out.checks[0]).toMatchObject({ replicas: 1, held: false, headroom: { rate: 13, held: false } });
    expect(out.checks[0].text).toMatch(
      /^held 10\/s for 10 s under p99<1000 and errors<1% .*, but the rate with its 30% headroom did not hold: 13\/s/,
    );
    // The next checked, held at both, and chosen on what was measured.
    expect(out.checks[1]).toMatchObject({ replicas: 2, held: true, headroom: { rate: 13, held: true } });
    expect(out.choice).toMatchObject({ shape: 'replicated', replicas: 2, cores: 1, from: 'measured' });
    // The terminal says why the cheaper one was not chosen.
    expect(r.stderr).toMatch(/check: the headroom: did not hold 13\/s/);
    expect(out.text).toMatch(/^replicated x2: 1 cores? /);
    // The sweep ran as a child given its job (issue 85): the counts and caps the choice decided,
    // as data, in the sweep's folder.
    const job = JSON.parse(fs.readFileSync(path.join(out.sweeps[0].dir, '.lab-job.json'), 'utf8'));
    expect(job).toMatchObject({ command: 'capacity', values: { replicas: [1, 2], deployments: 'replicated' } });
    expect(job.values.cap).toEqual([{ node: 'replica', cpuPct: 50, periodUs: null, memoryBytes: null }]);
    // Its choice.json says both checks, and nothing is left up.
    const written = JSON.parse(fs.readFileSync(path.join(out.resultsDir, 'choice.json'), 'utf8'));
    expect(written.checks.map((c) => [c.replicas, c.held])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect(await isUp(stateOf(place))).toBe(false);
  },
  420000,
);
