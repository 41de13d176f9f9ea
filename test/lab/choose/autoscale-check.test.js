'use strict';

const {
  rampPhases,
  checkJob,
  autoscaleVerdict,
  autoscaleSkip,
  autoscaleOf,
  rampShort,
} = require('../../../lab/choose/autoscale-check');
const { plan: scenarioPlan } = require('../../../lab/commands/scenario/plan');
const { parseCap } = require('../../../lab/topology/caps');
const { ROOT } = require('../../helper');

const PRICING = require('node:path').join(ROOT, 'test', 'fixtures', 'apps', 'pricing');

// The autoscaler the choice writes, checked by a run (lab/choose/autoscale-check.js, issue 82):
// its load, its command line, and its verdict from what the run measured.
const p = {
  rate: 20,
  holdS: 60,
  slos: [{ text: 'p99<200' }, { text: 'errors<1%' }],
  checkAutoscale: true,
  word: '/price?rounds=1000',
  values: {},
  // (Passed on: the service's folder as choose parsed it, the method as typed: lab/run/job.js.)
  toScenario: { values: { app: PRICING }, tokens: ['--method', 'POST'] },
  ctx: { stateDir: '/tmp/x-state', portBase: 9100, host: '127.0.0.1' },
};
const hpa = { minReplicas: 2, maxReplicas: 5, target: 48, downWindowS: 60 };
// A run judged as lab/capacity/level.js judges it: held, 4,000 answers, p99 80 ms, unless o.
const SLOS_HELD = p.slos.map(({ text }) => ({ text, ok: true }));
const level = (o = {}) => ({
  ok: true,
  answered: 4000,
  latencyMs: { p99: 80 },
  errorsPct: 0,
  thresholds: SLOS_HELD,
  generatorBound: null,
  ...o,
});
const broke = { ok: false, thresholds: [{ text: 'p99<200', ok: false }], latencyMs: { p99: 900 } };
// A run's autoscale record: its replicas each second and the decisions' averages.
const record = (counts, averages = [30]) => ({
  timeline: counts.map((replicas, t) => ({ t, replicas, ready: replicas })),
  decisions: averages.map((average) => ({ average })),
});

test('the load: from the rate to twice it over half the hold, back over a quarter, then the down window and three syncs', () => {
  expect(rampPhases(20, 60, 60)).toEqual([
    { name: 'ramp up', duration: 30, arrivalRate: 20, rampTo: 40 },
    { name: 'ramp down', duration: 15, arrivalRate: 40, rampTo: 20 },
    { name: 'back at the rate', duration: 105, arrivalRate: 20 },
  ]);
  // (Whole rates, never below one a second.)
  expect(rampPhases(0.4, 10, 60)[0]).toMatchObject({ arrivalRate: 1, rampTo: 1, duration: 5 });
});

test("its job is a scenario the scenario command accepts: the HPA's numbers, the ramp, the sweep's shape, caps and the service's flags", () => {
  const s = { workers: 2, balancer: 'nginx', node: null, caps: [parseCap('replica=25%')] };
  const phases = rampPhases(20, 60, 60);
  const job = checkJob(p, { shape: 'multi-replicated' }, s, hpa, phases, '/tmp/x-run');
  expect(job.positionals).toEqual(['/price?rounds=1000', 'endurance', 'multi-replicated']);
  expect(job.values).toMatchObject({
    autoscale: '2-5',
    'autoscale-target': 'cpu=48%',
    'autoscale-down-window': 60,
    workers: 2,
    balancer: 'nginx',
    generator: 'fast',
    app: PRICING,
    'run-dir': '/tmp/x-run',
    'port-base': 9100,
  });
  // (The ramp and the caps as data: the very objects, never through their text.)
  expect(job.values.phases).toEqual(phases);
  expect(job.values.cap).toEqual(s.caps);
  expect(job.values.method).toEqual([{ http: 'POST' }]);
  const run = scenarioPlan(job);
  expect(run.elastic.autoscale).toMatchObject({ min: 2, max: 5, target: 48, metric: 'cpu' });
  expect(run.elastic.autoscale.rule.downWindowS).toBe(60);
  expect(run.model.phases.map((ph) => [ph.arrivalRate, ph.rampTo, ph.duration])).toEqual([
    [20, 40, 30],
    [40, 20, 15],
    [20, undefined, 105],
  ]);
  expect(run.caps).toMatchObject({ 'replica-1': { cpuPct: 25 }, 'replica-2': { cpuPct: 25 } });
});

test('held: the SLO through the ramp, what the autoscaler did (out, and back)', () => {
  const v = autoscaleVerdict(level(), record([2, 2, 3, 4, 4, 3, 2]), hpa, p);
  expect(v).toMatchObject({ held: true, scaledOut: true, cameBack: true, most: 4, peakAtS: 3, last: 2 });
  expect(v.text).toBe(
    'held p99<200 and errors<1% on a ramp from 20/s to 40/s and back: it scaled out to 4 replica(s) (3 s in), and back to 2 by the end (p99 80 ms of 4000 answers, errors 0%)',
  );
  const still = autoscaleVerdict(level(), record([2, 3, 3]), hpa, p);
  expect(still).toMatchObject({ held: true, cameBack: false });
  expect(still.text).toMatch(/scaled out to 3 replica\(s\) \(1 s in\), and was still at 3 at the end/);
  // Still out with its replicas' CPU at 40% of their share on 3: ceil(3 x 40 / 48) = 3, so it
  // stays; back to 2 needs a target of 3 x 40 / 2 = 60%, and 10% over it (the rule's tolerance).
  const kept = autoscaleVerdict(level(), record([2, 3, 3], [70, 40]), hpa, p);
  expect(kept).toMatchObject({
    held: true,
    cameBack: false,
    change:
      "it did not come back to 2 at 20/s (its replicas' CPU 40% of their share at 3): raise the target utilization from 48% to about 66%",
  });
  expect(kept.text).toMatch(
    /, and was still at 3 at the end \(p99 80 ms of 4000 answers, errors 0%\); it did not come back to 2/,
  );
  // At 20% on 3 the rule would bring it back (ceil(3 x 20 / 48) = 2): the run ended first.
  expect(autoscaleVerdict(level(), record([2, 3, 3], [70, 20]), hpa, p).change).toBe(
    'it did not come back to 2 by the end: the run ended within its down window (60 s)',
  );
  // Back by the end: nothing to change.
  expect(autoscaleVerdict(level(), record([2, 3, 2], [70, 40]), hpa, p).change).toBeUndefined();
});

test('not held: what to change, by what the autoscaler did', () => {
  // At its maximum and still broke: the maximum is too low.
  const atMax = autoscaleVerdict(level(broke), record([2, 5, 5]), hpa, p);
  expect(atMax).toMatchObject({ held: false, change: 'it reached its maximum: raise maxReplicas above 5' });
  expect(atMax.text).toMatch(
    /^did not hold p99<200 and errors<1% on a ramp from 20\/s to 40\/s and back \(p99<200; p99 900 ms/,
  );
  // Out, but not to its maximum: too late, the target lower.
  expect(autoscaleVerdict(level(broke), record([2, 3, 3]), hpa, p).change).toBe(
    'it scaled out too late: lower the target utilization from 48% to about 36%',
  );
  // Never out: the replicas' CPU never reached the target.
  const never = autoscaleVerdict(level(broke), record([2, 2, 2], [30, 40]), hpa, p);
  expect(never).toMatchObject({
    scaledOut: false,
    change: 'it never scaled out: lower the target utilization from 48% to about 32%',
  });
  expect(never.text).toMatch(/it stayed at 2 replica\(s\) \(the replicas' CPU peaked at 40% of their share\)/);
  // A restart alone (the thresholds held) is no SLO broken, but no hold either.
  expect(autoscaleVerdict(level({ ok: false }), record([2, 2]), hpa, p).held).toBe(false);
});

test('a ramp the generator could not offer says nothing of the autoscaler', () => {
  const v = autoscaleVerdict(
    level({ ok: false, generatorBound: 'the generator launched 70% of the arrivals' }),
    record([2, 2]),
    hpa,
    p,
  );
  expect(v).toMatchObject({ held: false, inconclusive: true });
  expect(v.text).toBe(
    'no verdict on the autoscaler: the generator launched 70% of the arrivals; a ramp from 20/s to 40/s and back was never offered',
  );
  expect(v.change).toBeUndefined();
});

test('not run when the HPA cannot scale or --no-check-autoscale says so, and said why', async () => {
  expect(autoscaleSkip(p, hpa)).toBeNull();
  expect(autoscaleSkip(p, { ...hpa, maxReplicas: 2 })).toBe('not checked: the HPA cannot scale (2 to 2 replicas)');
  // Its count measured to hold twice the rate with its headroom: nothing to scale, and why.
  const q = { ...p, headroom: 0.3 };
  const twice = 52;
  expect(autoscaleSkip(q, { ...hpa, maxReplicas: 2 }, { measured: { rate: twice + 1 } })).toBe(
    `not checked: the HPA has nothing to scale (2 to 2 replicas): 2 replica(s) were measured to hold ${twice + 1}/s, more than twice the rate with its headroom (${twice}/s)`,
  );
  // (Held "at least" its rate, or less than twice: it cannot scale, said as before.)
  for (const measured of [{ rate: twice + 1, atLeast: 'at --max-rate' }, { rate: twice - 1 }])
    expect(autoscaleSkip(q, { ...hpa, maxReplicas: 2 }, { measured })).toMatch(/^not checked: the HPA cannot scale/);
  expect(autoscaleSkip({ ...p, checkAutoscale: false }, hpa)).toBe('not checked (--no-check-autoscale)');
  const said = [];
  const r = await autoscaleOf({ ...p, checkAutoscale: false }, {}, {}, hpa, '/tmp/none', (l) => said.push(l));
  expect(r).toEqual({ ran: false, text: 'not checked (--no-check-autoscale)' });
  expect(said).toEqual(['autoscaler: not checked (--no-check-autoscale)']);
});

// Whether the ramp was offered: judged on the whole run, its short phases' boundaries apart.
test('the ramp offered or not: the whole run against what its phases asked, a few misplaced arrivals apart', () => {
  const phase = (mean, durationS, launched) => ({
    targetRate: { mean },
    durationS,
    launched,
    ratio: launched / (mean * durationS),
  });
  // A 5 s ramp read 73.5 of 75 (a boundary's arrivals counted beside it): offered.
  expect(rampShort({ phases: [phase(15, 5, 73.5), phase(15, 3, 45), phase(10, 105, 1050)] })).toBeNull();
  // 100 arrivals short of 1,170: the generator's limit, said.
  expect(
    rampShort({ phases: [phase(15, 5, 60), phase(15, 3, 40), phase(10, 105, 970)], generator: { cpuPctMean: 97 } }),
  ).toBe('the generator launched 1070 of the 1170 arrivals asked (97% of a core)');
});
