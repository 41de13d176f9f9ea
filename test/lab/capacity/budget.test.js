'use strict';

const budget = require('../../../lab/capacity/budget');
const { searchDeployment } = require('../../../lab/capacity/flow');
const httpCapacity = require('../../../lab/commands/capacity/http');

// A search's settings as the capacity command makes them (lab/capacity/plan.js).
const planOf = (...flags) => httpCapacity.plan(['/ping', '--deployments', 'single', ...flags]);

// One deployment's search on a simulated clock: every level, probe and recovery takes the
// longest time the budget allows it (./budget.js), and the service answers as `verdict` says.
async function simulate(p, verdict, { recovered = () => true, log = () => {} } = {}) {
  let t = 0;
  const now = () => t * 1000;
  const limit = budget.limiter(p, p.timeLimitS * 1000, now);
  // The deployment and its baseline, before the first level.
  t += budget.deployS(p) + (p.fresh ? 0 : p.warmupS + budget.probeMaxS());
  let n = 0;
  const measure =
    () =>
    async (rate, holdS = p.holdFor(rate)) => {
      t += budget.levelMaxS(p, holdS);
      return { rate, holdS, ok: verdict(rate, holdS, n++), thresholds: [] };
    };
  const recover = p.fresh
    ? null
    : async () => {
        t += budget.recoveryMaxS(p);
        return recovered() ? { ok: true } : { ok: false, text: 'not recovered' };
      };
  // (The probe at rest at its longest: a recovery, then every probe it may take.)
  const settle = p.fresh ? null : async () => ((t += budget.settleMaxS(p) - budget.recoveryMaxS(p)), null);
  const pool = (runs) => ({ ok: runs.every((x) => x.ok) });
  const r = await searchDeployment(p, { measure, recover, settle, limit, pool, log, tag: 'single' });
  t += budget.T.teardown;
  return { seconds: t, ...r };
}

let seed = 11;
const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647;

test("the plan's maximum is a real maximum: no simulated search, however its service answers, takes longer", async () => {
  const settings = [
    [],
    ['--precision', '0.01', '--repetitions', '5'],
    ['--fresh-per-level', '--start', '5', '--min-rate', '0.5'],
    ['--time-limit', '10m', '--hold', '20s', '--verify-hold', '60s'],
    ['--max-levels', '40', '--recovery-wait', '2m', '--time-limit', '24h'],
  ];
  for (const flags of settings) {
    const p = planOf(...flags);
    const most = budget.maxS(p);
    const patterns = [
      () => true, // never breaks: up to --max-rate
      () => false, // always breaks: down to the floor, every verification stepped down
      (rate, holdS) => holdS <= p.holdFor(rate) && rate < 300, // a knee that moves with the hold
      () => random() < 0.5, // noise
      () => random() < 0.5,
      () => random() < 0.5,
    ];
    for (const verdict of patterns) {
      const { seconds } = await simulate(p, verdict);
      expect(Number.isFinite(seconds) && seconds > 0).toBe(true);
      expect({ flags, seconds: Math.min(seconds, most) }).toEqual({ flags, seconds });
    }
  }
});

test('the time limit is kept: nothing starts that could end past it, and the search says so', async () => {
  // (9 minutes: room for a verified capacity with levels of 30 s, about 8, and not for a search
  // that never breaks from 2/s up to 50,000/s, the highest rate a flag takes, 16 levels; a
  // shorter limit is refused before anything starts.)
  const p = planOf('--time-limit', '9m', '--hold', '30s', '--start', '2', '--max-rate', '50000');
  const { seconds, found } = await simulate(p, () => random() < 0.5);
  expect(seconds).toBeLessThanOrEqual(540 + budget.T.teardown);
  expect(['time-limit', 'bracketed', 'max-levels']).toContain(found.stop.kind);
  const said = [];
  const slow = await simulate(p, () => true, { recovered: () => true, log: (l) => said.push(l) });
  expect(slow.found.stop).toMatchObject({ kind: 'time-limit' });
  // Said in the terminal too, not only in capacity.json (issue 83).
  expect(said.at(-1)).toMatch(
    /^single: stopped at its time limit: the search's time limit \(--time-limit 540 s a deployment\)/,
  );
  expect(slow.found.stop.text).toMatch(
    /^the search's time limit \(--time-limit 540 s a deployment\) left \d+ s, and the (level|verification) at [\d.]+\/s may take \d+ s$/,
  );
  expect(slow.seconds).toBeLessThanOrEqual(540 + budget.T.teardown);
});

test('the plan says its bounds, and its "at most" is the bound', () => {
  const p = planOf('--time-limit', '10m', '--max-levels', '12');
  const text = httpCapacity.planText(p);
  expect(text).toMatch(
    /bounds: at most 12 levels \(--max-levels\) and 10:00 \(--time-limit\) for each deployment's search/,
  );
  // (And the machine's CPUs read at the start and the end, each reading bounded.)
  expect(text).toMatch(
    /\nthe machine: each CPU's speed read at the start and the end \(one computation pinned to each in turn, 5 s a CPU at most\), said when they ran over 15% apart\n/,
  );
  // (One search, and once more when other programs' work held it back: lab/capacity/search-again.js.)
  expect(text).toMatch(new RegExp(`at most 20:10 \\(1 search\\(es\\) and 1 searched again, each to its bounds\\)`));
  // Four deployments: four times one, and two of them again at most.
  const four = httpCapacity.plan(['/ping', '--time-limit', '10m']);
  expect(httpCapacity.planText(four)).toMatch(/at most 1:00:30 \(4 search\(es\) and 2 searched again/);
});

// Steps that overrun what the table allows them (a level that hangs, a machine far slower than
// the one the table was measured on): the gate between steps cannot see it coming, so each step
// runs with the time left as its time-out (lab/capacity/session.js, level.js) and is cut there,
// recorded as such. On a fake clock: every step takes three times its longest, and is cut at the
// deadline; the search still ends within its limit (and the cut step's grace), saying why.
test('steps that overrun the table are cut at the time left: the search ends within its limit, and says so', async () => {
  const p = planOf('--time-limit', '9m', '--hold', '30s', '--start', '2', '--max-rate', '50000');
  const deadline = p.timeLimitS;
  let t = budget.deployS(p) + p.warmupS + budget.probeMaxS();
  const now = () => t * 1000;
  const limit = budget.limiter(p, deadline * 1000, now);
  const GRACE = 10;
  // A step of `s` seconds, overrun 3x, cut at the deadline: -> whether it was cut.
  const step = (s) => {
    const left = deadline - t;
    if (3 * s <= left) return ((t += 3 * s), false);
    t += left + GRACE;
    return true;
  };
  const measure =
    () =>
    async (rate, holdS = p.holdFor(rate)) =>
      step(budget.levelMaxS(p, holdS))
        ? { rate, holdS, ok: false, failed: `cut by the search's time limit`, thresholds: [] }
        : { rate, holdS, ok: true, thresholds: [] };
  const recover = async () => (step(budget.recoveryMaxS(p)), { ok: true });
  const settle = async () => (step(budget.settleMaxS(p) - budget.recoveryMaxS(p)), null);
  const pool = (runs) => ({ ok: runs.every((x) => x.ok) });
  const r = await searchDeployment(p, { measure, recover, settle, limit, pool, log: () => {}, tag: 'single' });
  expect(t).toBeLessThanOrEqual(deadline + GRACE);
  const stop = r.found.stop;
  expect(['level-failed', 'time-limit']).toContain(stop.kind);
  if (stop.kind === 'level-failed') expect(stop.level.failed).toMatch(/cut by the search's time limit/);
});

// Issue 82: the points a sweep fits are one measure. A count verified at a low rate once held
// for 40 s and one at a high rate for 12 s in the same sweep; every count's verification now
// holds as long (the hold at --start), and the plan says so. Not in a search of deployments,
// whose rows each hold what their rate asks.
test("a sweep's counts are verified for the same time, whatever rate each holds", () => {
  const sweep = httpCapacity.plan(['/ping', '--replicas', '1,2,3,4', '--start', '20']);
  expect(sweep.verifyHoldFor(20)).toBe(40);
  expect(sweep.verifyHoldFor(400)).toBe(sweep.verifyHoldFor(20));
  expect(httpCapacity.planText(sweep)).toMatch(
    /each held for 40 s at every count \(one measure for every point fitted\)/,
  );
  const rows = planOf('--start', '20');
  expect(rows.verifyHoldFor(400)).toBeLessThan(rows.verifyHoldFor(20));
  // --verify-hold says it for every count.
  expect(httpCapacity.plan(['/ping', '--replicas', '1,2,3,4', '--verify-hold', '15s']).verifyHoldFor(400)).toBe(15);
});
