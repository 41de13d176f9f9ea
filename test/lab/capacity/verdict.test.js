'use strict';

const { verdictOf, perCore, notRanked, machineLimit } = require('../../../lab/capacity/verdict');

test('the verdict: the verified rate, the run that broke, the cost; "at least" where the machine was the limit', () => {
  const level = (rate, ok, machineShare = 0.6) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 2, p99: ok ? 20 : 400, max: 500 },
    errorsPct: 0,
    machineShare,
    holdS: 6,
    generatorCpuPct: 30,
    thresholds: [{ text: 'p99<200', ok, value: ok ? 20 : 400, unit: 'ms' }],
    cost: { cpuMsPerRequest: 2, tiers: { replicas: 1.8, nginx: 0.2 }, cpuCores: 1.2, memoryMiB: 90 },
  });
  const p = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000 };
  const found = { held: level(600, true), broke: level(630, false), levels: [1, 2, 3], stop: { kind: 'bracketed' } };
  const v = verdictOf(
    'single',
    { label: 'single' },
    found,
    { attempts: [{ rate: 600, ok: true, runs: [level(600, true), level(600, true)] }] },
    p,
  );
  // A capacity is a rate held for a stated time: each verification run's, pooled.
  expect(v).toMatchObject({
    maxRate: 600,
    atLeast: false,
    bound: 'deployment',
    text: '600/s held for 6 s (2 runs pooled)',
    heldS: 6,
    perCore: 500,
  });
  expect(v.verified).toMatchObject({ rate: 600, ok: true, held: 2, runs: 2 });
  expect(v.broke).toMatchObject({ rate: 630, p99: 400, failed: ['p99<200'] });
  const busy = verdictOf(
    'replicated',
    { label: 'replicated' },
    { ...found, held: level(900, true, 0.95) },
    { attempts: [{ rate: 900, ok: true, runs: [level(900, true, 0.95)] }] },
    p,
  );
  expect(busy.text).toMatch(/^at least 900\/s held for 6 s \(this machine was the limit: its cores were 95% busy/);
  expect(perCore([v, busy]).deployment).toBe('single');
  // A rate no verification held (1 of 3, then its steps down too) is not a capacity, and is
  // not the one that holds "the most per core".
  const shaky = verdictOf(
    'multi',
    { label: 'multi' },
    found,
    {
      attempts: [600, 570, 541.5].map((rate) => ({
        rate,
        ok: false,
        runs: [level(rate, true), level(rate, false), level(rate, false)],
      })),
    },
    p,
  );
  expect(shaky).toMatchObject({ maxRate: null, bound: 'unverified' });
  expect(shaky.text).toMatch(
    /^no verified rate: 600\/s held for 6 s in the search, but no verification held for 6 s, 3 tries down to 541\.5\/s \(the last: 1 of 3 runs held on their own/,
  );
  expect(perCore([shaky, busy]).deployment).toBe('replicated');
  const first = verdictOf(
    'x',
    { label: 'x' },
    { held: null, broke: level(50, false), levels: [1], stop: { kind: 'first-level' } },
    null,
    p,
  );
  expect(first.maxRate).toBeNull();
  expect(first.text).toMatch(/^the first level \(50\/s\) already breaks p99<200 \(measured 400ms\)/);
});

// /ping on single broke at 3,100/s with the generator 115 ms late at p99: not the deployment's.
test('a late generator at the rate that broke the SLO makes the answer "at least", named', () => {
  const lvl = (rate, ok, lag) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 1, p99: ok ? 45 : 236, max: 300 },
    errorsPct: 0,
    machineShare: 0.8,
    sendLagP99Ms: lag,
    holdS: 12,
    thresholds: [{ text: 'p99<200', ok, value: ok ? 45 : 236, unit: 'ms' }],
    cost: { cpuMsPerRequest: 0.5, tiers: {}, cpuCores: 0.8, memoryMiB: 60 },
  });
  const p = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000 };
  const found = (lag) => ({
    held: lvl(3000, true, 10),
    broke: lvl(3100, false, lag),
    levels: [],
    stop: { kind: 'bracketed' },
  });
  const late = verdictOf(
    'single',
    { label: 'single' },
    found(114.7),
    { attempts: [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }] },
    p,
  );
  expect(late.text).toMatch(
    /^at least 3000\/s held for 12 s \(the generator was late at 3100\/s \(p99 send lag 114\.7 ms/,
  );
  const onTime = verdictOf(
    'single',
    { label: 'single' },
    found(3),
    { attempts: [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }] },
    p,
  );
  expect(onTime.text).toBe('3000/s held for 12 s');
  // Late, but far past the SLO: the lateness does not explain the break, the deployment's.
  const saturated = found(30);
  saturated.broke.latencyMs.p99 = 2402;
  saturated.broke.thresholds = [{ text: 'p99<200', metric: 'p99', limit: 200, ok: false, value: 2402, unit: 'ms' }];
  const deployments = verdictOf(
    'single',
    { label: 'single' },
    saturated,
    { attempts: [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }] },
    p,
  );
  expect(deployments.text).toBe('3000/s held for 12 s');
  expect(late.otherWork).toBeUndefined();
  // Late while other programs took a quarter of the machine or more: other work held it back,
  // so the search is run once more (lab/capacity/search-again.js), and the sentence says so.
  const busy = found(114.7);
  busy.broke.machineShare = 0.3;
  busy.broke.coresShare = 0.7;
  const heldBack = verdictOf(
    'single',
    { label: 'single' },
    busy,
    { attempts: [{ rate: 3000, ok: true, runs: [lvl(3000, true, 10)] }] },
    p,
  );
  expect(heldBack).toMatchObject({ bound: 'generator', atLeast: true, otherWork: true });
  expect(heldBack.text).toMatch(/, other programs taking 40% of this machine: the break is its/);
});

test('a service that changed under the search: no capacity, the sentence that says why, and the way on', () => {
  const lvl = (rate, ok) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 5, p99: ok ? 50 : 9900, max: 10000 },
    errorsPct: ok ? 0 : 15,
    thresholds: [{ text: 'p99<500', ok, value: ok ? 50 : 9900, unit: 'ms' }],
  });
  const p = { slos: [{ text: 'p99<500', metric: 'p99', limit: 500 }], maxRate: 20000 };
  const again = lvl(100, false);
  const hyst = verdictOf(
    'single',
    { label: 'single' },
    {
      held: lvl(100, true),
      broke: lvl(125, false),
      levels: [1, 2, 3],
      stop: { kind: 'hysteresis', level: again, first: lvl(100, true), overload: lvl(125, false) },
    },
    null,
    p,
  );
  expect(hyst).toMatchObject({ maxRate: null, bound: 'hysteresis' });
  expect(hyst.text).toMatch(
    /^100\/s held at first but broke after the overload at 125\/s, twice \(p99<500 \(measured 9900ms\)\): the service changed under the search \(drift: its state grew, or its queue did not drain\); --fresh-per-level redeploys it/,
  );
  const stuck = verdictOf(
    'replicated',
    { label: 'replicated' },
    {
      held: lvl(100, true),
      broke: lvl(125, false),
      levels: [],
      stop: {
        kind: 'no-recovery',
        level: lvl(125, false),
        recovery: { text: 'not recovered after 60 s (4 probe(s))' },
      },
    },
    null,
    p,
  );
  expect(stuck).toMatchObject({ maxRate: null, bound: 'no-recovery' });
  expect(stuck.text).toMatch(
    /^after the overload at 125\/s the service did not answer as it did before the search \(not recovered after 60 s/,
  );
});

test('every deployment broke near one rate with the cores busy: the machine is the limit, said, nothing ranked', () => {
  const row = (deployment, rate, share) => ({
    deployment,
    maxRate: null,
    broke: { rate, machineShare: share },
    held: { rate: rate * 0.95, machineShare: share },
  });
  const m = machineLimit([row('single', 1000, 0.91), row('replicated', 1062, 0.87)], 2);
  expect(m.text).toMatch(
    /^this machine's 2 cores set the limit at about 1062\/s for every deployment \(single broke at 1000\/s, its cores 91% busy; replicated broke at 1062\/s, its cores 87% busy\): the deployments cannot be told apart on this machine; run the service on more cores, cap the replicas/,
  );
  // Apart by more than 20%, or cores not busy, or one deployment only: not the machine.
  expect(machineLimit([row('single', 300, 0.9), row('replicated', 1000, 0.9)], 2)).toBeNull();
  expect(machineLimit([row('single', 1000, 0.6), row('replicated', 1000, 0.9)], 2)).toBeNull();
  expect(machineLimit([row('single', 1000, 0.9)], 2)).toBeNull();
});

test("a script's capacity is in scenarios a second, its requests a second beside it; the try that verified it", () => {
  const lvl = (rate) => ({
    rate,
    ok: true,
    answeredPerS: rate * 3,
    latencyMs: { p50: 2, p99: 20, max: 30 },
    errorsPct: 0,
    machineShare: 0.4,
    holdS: 6,
    thresholds: [],
    cost: { cpuMsPerRequest: 1, tiers: {}, cpuCores: 0.3, memoryMiB: 50 },
  });
  const p = { slos: [], maxRate: 20000, model: { flows: [] } };
  const v = verdictOf(
    'single',
    { label: 'single' },
    { held: lvl(100), broke: null, levels: [], stop: { kind: 'bracketed' } },
    { attempts: [90, 85].map((rate, i) => ({ rate, ok: i === 1, runs: [lvl(rate)] })) },
    p,
  );
  expect(v).toMatchObject({ maxRate: 85, unit: 'scenarios', requestsPerS: 255 });
  expect(v.text).toBe('85 scenarios/s (255 requests/s answered) held for 6 s, verified at the 2nd try');
});

// Levels as the search measures them.
const lvl = (rate, ok, more = {}) => ({
  rate,
  ok,
  answeredPerS: rate,
  holdS: 20,
  latencyMs: { p50: 5, p99: ok ? 50 : 900, max: 1000 },
  errorsPct: 0,
  machineShare: 0.3,
  thresholds: [{ text: 'p99<200', ok, value: ok ? 50 : 900, unit: 'ms' }],
  cost: { cpuMsPerRequest: 4, tiers: {}, cpuCores: 0.2, memoryMiB: 80 },
  ...more,
});
const P = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000, timeLimitS: 1800 };
const bracketed = { held: lvl(50, true), broke: lvl(52, false), levels: [1, 2, 3], stop: { kind: 'bracketed' } };

test('drift, found by the verification or by the probe at rest: no capacity, what was seen, what to do; nothing ranked', () => {
  const again = {
    attempts: [{ rate: 50, ok: false, runs: [lvl(50, false, { holdS: 40 })] }],
    again: [lvl(50, false), lvl(50, false)],
    drift: {
      rule: 'again',
      rate: 50,
      text: '50/s held for 20 s at 2:10 but not for 40 s at 12:40, nor again for 20 s at 13:30',
    },
  };
  const d = verdictOf('single', { label: 'single' }, bracketed, again, P);
  expect(d).toMatchObject({ maxRate: null, bound: 'drift' });
  expect(d.text).toMatch(
    /^50\/s held for 20 s at 2:10 but not for 40 s at 12:40, nor again for 20 s at 13:30: the service changed under its search \(drift: what held at first no longer holds\), so its capacity depends on its state/,
  );
  expect(d.text).toMatch(/Measure it with --fresh-per-level .*, or reset its data with --app-setup$/);
  const settled = verdictOf(
    'replicated',
    { label: 'replicated' },
    {
      ...bracketed,
      settled: {
        kind: 'drift',
        drift: {
          rule: 'settled',
          text: 'a 5/s probe at rest answered slower than before the search (its median went from 4.9 ms to 12.6 ms)',
        },
      },
    },
    null,
    P,
  );
  expect(settled).toMatchObject({ maxRate: null, bound: 'drift' });
  expect(settled.text).toMatch(
    /^a 5\/s probe at rest answered slower than before the search \(its median went from 4\.9 ms to 12\.6 ms\): the service changed under its search \(drift: it slowed as the search loaded it\)/,
  );
  // A third deployment held a rate: not ranked against the others, and said why.
  const fine = verdictOf(
    'multi',
    { label: 'multi' },
    bracketed,
    { attempts: [{ rate: 50, ok: true, runs: [lvl(50, true)] }] },
    P,
  );
  expect(fine.maxRate).toBe(50);
  expect(perCore([d, settled, fine])).toBeNull();
  expect(notRanked([d, settled, fine])).toMatch(
    /^not ranked: the service changed under the search of single, replicated \(drift\)/,
  );
  expect(notRanked([fine, { ...fine, deployment: 'replicated' }])).toBeNull();
  // Drift not judged for one (its probe at rest slower on a busy machine): not ranked either,
  // said with the sentence; with one deployment alone there is no ranking to refuse.
  const doubt = verdictOf(
    'replicated',
    { label: 'replicated' },
    { ...bracketed, unjudged: { text: 'drift could not be judged: other programs took 80% of the machine while …' } },
    { attempts: [{ rate: 50, ok: true, runs: [lvl(50, true)] }] },
    P,
  );
  expect(doubt).toMatchObject({ maxRate: 50, driftUnjudged: expect.stringMatching(/^drift could not be judged/) });
  expect(doubt.text).toMatch(/; drift could not be judged: other programs took 80% of the machine while …$/);
  expect(notRanked([fine, doubt])).toMatch(
    /^not ranked: for replicated drift could not be judged: other programs took 80% of the machine/,
  );
  expect(perCore([fine, doubt])).toBeNull();
  expect(notRanked([doubt])).toBeNull();
});

test('a knee that moves with the hold: the rate held for the stated time, and the sentence', () => {
  const v = verdictOf(
    'single',
    { label: 'single' },
    { ...bracketed, held: lvl(78.2, true), broke: lvl(82, false) },
    {
      attempts: [
        { rate: 78.2, ok: false, runs: [lvl(78.2, false, { holdS: 40 })] },
        { rate: 74.3, ok: false, runs: [lvl(74.3, false, { holdS: 40 })] },
        { rate: 70.6, ok: true, runs: [lvl(70.6, true, { holdS: 40 })] },
      ],
      moves: { rate: 78.2, heldS: 20, brokeS: 40 },
    },
    P,
  );
  expect(v.maxRate).toBe(70.6);
  expect(v.text).toBe(
    '70.6/s held for 40 s, verified at the 3rd try; 78.2/s held for 20 s but not for 40 s: the knee moves with how long the load lasts (--verify-hold sets how long a capacity must hold)',
  );
  expect(v.moves).toMatchObject({ rate: 78.2, heldS: 20, brokeS: 40 });
});

test('a restart, a level that could not run, the time limit: each said, no capacity', () => {
  const crashed = lvl(64, false, { restarts: [{ node: 'replica-2', restarts: 1, exitCodes: { 1: 1 } }] });
  const r = verdictOf(
    'replicated',
    { label: 'replicated' },
    {
      held: lvl(32, true),
      broke: crashed,
      levels: [lvl(32, true), crashed],
      stop: { kind: 'restarted', level: crashed },
    },
    null,
    P,
  );
  expect(r).toMatchObject({ maxRate: null, bound: 'restarted' });
  expect(r.text).toMatch(/^replica-2 restarted \(exit code 1\) at 64\/s: the service crashed under the search/);
  expect(r.restarts).toEqual([{ rate: 64, text: 'replica-2 restarted (exit code 1) at 64/s' }]);
  const failed = verdictOf(
    'single',
    { label: 'single' },
    { ...bracketed, stop: { kind: 'level-failed', level: { rate: 51, failed: 'the level printed no result' } } },
    null,
    P,
  );
  expect(failed).toMatchObject({ maxRate: null, bound: 'failed' });
  expect(failed.text).toBe(
    'the level at 51/s could not run: the level printed no result; 50/s held and 52/s broke before it, not verified',
  );
  const timed = verdictOf(
    'single',
    { label: 'single' },
    { ...bracketed, stop: { kind: 'time-limit', text: 'the time limit left 3 s' } },
    null,
    P,
  );
  expect(timed).toMatchObject({ maxRate: null, bound: 'time-limit' });
  expect(timed.text).toMatch(
    /^the search stopped at its time limit after 3 level\(s\): the time limit left 3 s; 50\/s held and 52\/s broke before it, not verified; a longer --time-limit/,
  );
});

// One figure for how busy the machine was, in each row and in the sentence over the rows: the
// run's processes' share or the whole machine's cores, whichever is higher.
test('the machine-limit rule is one: a row is "at least" where the sentence would count it busy', () => {
  const busyBroke = lvl(1000, false, { machineShare: 0.6, coresShare: 0.9 });
  const row = verdictOf(
    'single',
    { label: 'single' },
    { held: lvl(950, true), broke: busyBroke, levels: [], stop: { kind: 'bracketed' } },
    { attempts: [{ rate: 950, ok: true, runs: [lvl(950, true)] }] },
    P,
  );
  expect(row).toMatchObject({ bound: 'machine', atLeast: true, busy: 0.9 });
  const other = { ...row, deployment: 'replicated', broke: { ...row.broke, rate: 1040 } };
  expect(machineLimit([row, other], 2).text).toMatch(/single broke at 1000\/s, its cores 90% busy/);
  // Not busy by that figure: neither the row nor the sentence.
  const quiet = verdictOf(
    'single',
    { label: 'single' },
    {
      held: lvl(950, true),
      broke: lvl(1000, false, { machineShare: 0.6, coresShare: 0.7 }),
      levels: [],
      stop: { kind: 'bracketed' },
    },
    { attempts: [{ rate: 950, ok: true, runs: [lvl(950, true)] }] },
    P,
  );
  expect(quiet.bound).toBe('deployment');
  expect(machineLimit([quiet, { ...quiet, deployment: 'replicated' }], 2)).toBeNull();
});

// Busy with other work is no limit of the deployment's unless it waited for the cores (issue 84:
// a paced service, limited by its own timer, was said to be limited by this machine and its
// capacity given as "at least", and the scaling law lost its points).
test('a machine busy with other work is the limit only when the deployment waited for a core', () => {
  const level = (rate, ok, o) => ({
    rate,
    ok,
    answeredPerS: rate,
    latencyMs: { p50: 60, p99: ok ? 150 : 900, max: 1000 },
    errorsPct: 0,
    machineShare: 0.2,
    coresShare: 0.95,
    holdS: 6,
    generatorCpuPct: 10,
    thresholds: [{ text: 'p99<200', ok, value: ok ? 150 : 900, unit: 'ms' }],
    cost: { cpuMsPerRequest: 0.3, tiers: { replicas: 0.2, nginx: 0.1 }, cpuCores: 0.05, memoryMiB: 60 },
    ...o,
  });
  const p = { slos: [{ text: 'p99<200', metric: 'p99', limit: 200 }], maxRate: 20000 };
  const verdict = (o) =>
    verdictOf(
      'single',
      { label: 'single' },
      { held: level(20, true, o), broke: level(25, false, o), levels: [1, 2, 3], stop: { kind: 'bracketed' } },
      { attempts: [{ rate: 20, ok: true, runs: [level(20, true, o)] }] },
      p,
    );
  // Its processes waited 5% of the time: its own limit, not "at least".
  expect(verdict({ waitShare: 0.05 })).toMatchObject({ maxRate: 20, bound: 'deployment', atLeast: false });
  // Waited half the time: the machine held it back.
  const held = verdict({ waitShare: 0.5 });
  // (Other programs' work: a sweep searches such a count again, ../../../lab/capacity/sweep-again.js.)
  expect(held).toMatchObject({ bound: 'machine', atLeast: true, otherWork: true });
  expect(held.text).toMatch(
    /this machine was busy with other work: its cores were 95% busy, this run's own processes 20%, its processes waiting for a core 50% of the time/,
  );
  // Not measured (no schedstat): as before, the machine is named.
  expect(verdict({ waitShare: null })).toMatchObject({ bound: 'machine' });
  // Its own processes filled the cores: the machine, whatever the wait.
  const own = verdict({ waitShare: 0.05, machineShare: 0.9 });
  expect(own).toMatchObject({ bound: 'machine' });
  // (The run's own processes: no other work to wait out.)
  expect(own.otherWork).toBeUndefined();
  expect(verdict({ waitShare: 0.05 }).otherWork).toBeUndefined();
  // The sentence over rows follows the same rule.
  const row = (name, w) => ({
    deployment: name,
    maxRate: 20,
    broke: { rate: 25, machineShare: 0.2, coresShare: 0.95, waitShare: w },
  });
  expect(machineLimit([row('single', 0.05), row('replicated', 0.05)], 2)).toBeNull();
  expect(machineLimit([row('single', 0.5), row('replicated', 0.5)], 2)).not.toBeNull();
});
