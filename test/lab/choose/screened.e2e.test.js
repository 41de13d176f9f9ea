'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labJson, flagsOf, fixtureApp } = require('../../helper');
const { journey, openPage } = require('../../browser');

// choose at its defaults (issue 82): no --replicas, so each unit is screened at one replica and
// swept in the order of its bound. The service is the tests' own (test/fixtures/apps/paced): one
// request at a time of 50 ms, 20/s a replica whatever its CPU share, a limit set by timers. Two
// sizes (the defaults, a quarter and a half of a core) of one shape: each screen holds about
// 20/s and breaks above it, so each bound is one replica, 0.25 and 0.5 cores. The quarter is
// swept (its one replica holds the 13/s wanted, 10/s with 30% headroom), and the half, bounded at
// 0.5 cores, is not: no count of it can cost less. Short settings (the user's win over the
// screen's and the sweep's own): 2 s levels on fresh deployments, one verification of 4 s, and
// no level above 25/s (a screen breaks there or below: the bracket is 20 to 25/s at most).
const PACED = fixtureApp('paced');

// A sweep's levels as it measured them: rate, held or not, p99 and max, answers, errors, the
// generator's send lag, whether it was the bound, and its share of the machine.
function levelsOf(dir) {
  const c = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'));
  return c.levels
    .map((l) =>
      JSON.stringify({
        rate: l.rate,
        ok: l.ok,
        p99: l.latencyMs?.p99,
        max: l.latencyMs?.max,
        answered: l.answered,
        errorsPct: l.errorsPct,
        sendLagP99Ms: l.sendLagP99Ms,
        generatorBound: l.generatorBound,
        machineShare: l.machineShare,
      }),
    )
    .join('\n');
}

journey(
  'choose at its defaults: each size screened at one replica, the cheapest bound swept and checked, the other left unswept with why',
  async () => {
    const { r, out } = await labJson(
      [
        'choose',
        '/work?ms=50&c=1',
        ...flagsOf({ app: PACED, rate: 10, shapes: 'replicated', hold: '10s', slo: 'p99<1000' }),
        ...flagsOf({ searchHold: '2s', verifyHold: '4s', warmup: '1s', repetitions: 1, start: 10, maxRate: 25 }),
        ...['--fresh-per-level', '--no-check-autoscale'],
      ],
      { ports: 40, first: true, timeoutMs: 600000 },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect({ code: r.code, tail: r.code ? r.stderr.split('\n').slice(-20).join('\n') : '' }).toEqual({
      code: 0,
      tail: '',
    });
    // Both sizes screened: one replica held what its timers allow (20/s; a level at the limit
    // holds for 2 s with a little queue, so up to 22/s), broke above, and bounds one replica.
    expect(out.sizes).toEqual([0.25, 0.5]);
    expect(out.screens.map((x) => x.id)).toEqual(['replicated-25pct', 'replicated-50pct']);
    for (const x of out.screens) {
      const [pt] = x.points;
      // (A screen below the timers' rate says what each of its levels measured: CI run P read
      // 5/s held once in 16 runs.)
      if (!(pt.maxRate >= 10)) throw new Error(`${x.id} held ${pt.maxRate}/s:\n${levelsOf(x.dir)}`);
      expect(pt.maxRate).toBeGreaterThanOrEqual(10);
      expect(pt.maxRate).toBeLessThanOrEqual(22);
      expect(pt.broke).toBeGreaterThan(pt.maxRate);
      expect(pt.highestBroke).toBeGreaterThanOrEqual(pt.broke);
      expect(x.bound).toMatchObject({ replicas: 1 });
    }
    // The quarter swept, at its bound's count and the one above, from the screen's rate.
    expect(out.sweeps.map((x) => x.id)).toEqual(['replicated-25pct']);
    expect(out.sweeps[0].points.map((p) => p.replicas)).toEqual([1, 2]);
    const job = JSON.parse(fs.readFileSync(path.join(out.sweeps[0].dir, '.lab-job.json'), 'utf8'));
    expect(job.values.replicas).toEqual([1, 2]);
    // (The user's --start wins over the screen's.)
    expect(job.values.start).toBe(10);
    // The half never swept: its bound, 0.5 cores, is no less than the quarter's one replica.
    const half = out.candidates.find((c) => c.sweepId === 'replicated-50pct');
    expect(half.replicas).toBeNull();
    expect(half.refused).toMatch(
      /^not swept: 1 replica held [\d.]+\/s in its screen and broke at up to [\d.]+\/s \(so at most [\d.]+\/s, with 25% for a screen's noise\): 1 replica\(s\) at least \(0\.5 cores\).*no less than replicated of 25% a replica x1 measured to hold the rate \(0\.25 cores\)$/,
    );
    // Chosen on what was measured, and held at the rate and at the rate with its headroom.
    expect(out.choice).toMatchObject({ replicas: 1, cores: 0.25, from: 'measured', cpuPerReplica: 0.25 });
    expect(out.checks.at(-1)).toMatchObject({ replicas: 1, held: true, headroom: { rate: 13, held: true } });
    expect(r.stderr).toMatch(/screen replicated-50pct: 1 replica held/);
    expect(r.stderr).toMatch(/sweep replicated-50pct: not swept/);
    return out.resultsDir;
  },
  async (dir, browser) => {
    const seen = await openPage(browser, path.join(dir, 'choice.html'), 'choose-screened');
    expect(seen.problems).toEqual([]);
    expect(seen.bad).toEqual([]);
    expect(seen.text).toMatch(/Screens: one replica of each/);
    // The screens' table: a row a unit, one swept and one not.
    const screens = seen.tables.find((t) => t.heads.some((h) => h.startsWith('broke at')));
    expect(screens.rows).toBe(2);
    expect(seen.text).toMatch(/replicated-50pct[^]*not swept/);
  },
  { timeoutMs: 620000, needs: 'cgroups' },
);
