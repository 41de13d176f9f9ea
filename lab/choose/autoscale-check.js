'use strict';

const path = require('node:path');
const { runChild, judgeLevel } = require('../capacity/level');
const { reasonOf } = require('../run/child');
const { phasesText } = require('../scenario/phase-list');
const { jobInto, withValues } = require('../run/job');
const { contextValues } = require('../topology/context');
const { COMMAND: SCENARIO } = require('../run/scenario-flags');
const { DEFAULTS: HPA_RULE } = require('../elastic/hpa');
const { launchedShort } = require('../generators/judge');
const { labError } = require('../../common/errors');
const { interrupted } = require('../ownership/cleanups');
const { headroomRate } = require('./check');

// The autoscaler the choice writes, checked by a run (choose --check-autoscale, on when its
// HPA can scale): the chosen deployment started at the HPA's minimum under the lab's own
// Kubernetes-rule autoscaler (scenario --autoscale, lab/elastic/hpa.js) with the HPA's
// minimum, maximum, CPU target and scale-down window, on a ramp from the target rate to twice
// it over half of --hold, back down over a quarter, then at the target rate for the down window
// and three syncs (the last recommendations that kept the count up leave the window). Did it
// scale out, hold the SLO through the ramp (judged after the warm-up), and come back? When it
// did not hold, it says what to change; the manifest keeps what was written (a changed target
// would be one no run checked).

// The load: [{ name, duration, arrivalRate, rampTo? }], from the target rate `rate`.
function rampPhases(rate, holdS, downWindowS) {
  const r = (x) => Math.max(1, Math.round(x));
  return [
    { name: 'ramp up', duration: Math.max(1, Math.round(holdS / 2)), arrivalRate: r(rate), rampTo: r(2 * rate) },
    { name: 'ramp down', duration: Math.max(1, Math.round(holdS / 4)), arrivalRate: r(2 * rate), rampTo: r(rate) },
    { name: 'back at the rate', duration: downWindowS + 3 * HPA_RULE.syncS, arrivalRate: r(rate) },
  ];
}

// The scenario run as its job (../run/job.js): the service's words, and the flags passed on
// (choose's plan: p.toScenario, lab/run/job.js passOn: values where scenario's table holds the
// same flag, else the text as typed, parsed once by scenario's own table); the HPA's numbers,
// the ramp, the sweep's shape, caps and Node set on it as data (the ramp's phases and the caps
// never written as text to be parsed back). -> the parsed form scenario reads.
//   p: the choice's plan; c: the chosen candidate; s: its sweep (lab/commands/choose/plan.js);
//   hpa: { minReplicas, maxReplicas, target, downWindowS }.
function checkJob(p, c, s, hpa, phases, dir) {
  const words = p.values.script ? [] : [p.word, 'endurance'];
  const typed = SCENARIO.parsePart([...words, c.shape, ...p.toScenario.tokens]);
  const decided = {
    ...p.toScenario.values,
    autoscale: `${hpa.minReplicas}-${hpa.maxReplicas}`,
    'autoscale-target': `cpu=${hpa.target}%`,
    'autoscale-down-window': hpa.downWindowS,
    phases,
    ...(s.workers > 1 ? { workers: s.workers } : {}),
    balancer: s.balancer,
    ...(s.node ? { node: [s.node.version] } : {}),
    cap: s.caps,
    generator: 'fast',
    'no-statsd': true,
    'no-graphite': true,
    json: true,
    'run-dir': dir,
    ...contextValues(p.ctx),
  };
  return withValues(SCENARIO, typed, decided);
}

// -> { ran: true, held, inconclusive?, text, dir, ... } (see autoscaleVerdict).
async function checkAutoscale(p, c, s, hpa, dir, log) {
  const phases = rampPhases(p.rate, p.holdS, hpa.downWindowS);
  const totalS = phases.reduce((a, ph) => a + ph.duration, 0);
  const warmupS = s.plan.warmupS;
  log(
    `autoscaler: the HPA (${hpa.minReplicas} to ${hpa.maxReplicas} replicas at ${hpa.target}% CPU) on ${c.label}, from ${hpa.minReplicas} replica(s), under ${phasesText(phases)} (${totalS} s)`,
  );
  // (Each change of the replica count said as it happens: the run lasts minutes.)
  const started = Date.now();
  const onLine = (line) => {
    const m = /autoscaler: (\d+ -> \d+ replica\(s\).*)$/.exec(line);
    if (m) log(`autoscaler: ${Math.round((Date.now() - started) / 1000)} s in: ${m[1]}`);
  };
  const job = jobInto(dir, 'scenario', SCENARIO, checkJob(p, c, s, hpa, phases, dir));
  const r = await runChild(job, null, onLine);
  let summary;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    throw labError('LAB_ERR_PROCESS', 'the autoscaler check', reasonOf(r.tail, r.code));
  }
  const level = judgeLevel(summary, {
    dir,
    warmupS,
    holdS: totalS - warmupS,
    rate: p.rate,
    slos: p.slos,
    expect: s.plan.expect,
  });
  // (The ramp offered or not, judged on the whole run: its phases are short, and a 5 s one's
  // boundary once misplaced 1.5 of 75 arrivals, read as the generator's limit.)
  const verdict = autoscaleVerdict({ ...level, generatorBound: rampShort(summary) }, summary.autoscale, hpa, p);
  log(`autoscaler: ${verdict.text}`);
  return { ran: true, ...verdict, dir, phases: phasesText(phases) };
}

// The generator's limit over the whole ramp, by the generator's own rule (../generators/
// judge.js) on its phases taken as one: null when offered.
function rampShort(summary) {
  const phases = summary.phases || [];
  const askedOf = (ph) => (ph.targetRate?.mean ?? 0) * (ph.durationS ?? 0);
  const asked = phases.reduce((a, ph) => a + askedOf(ph), 0);
  const launched = phases.reduce(
    (a, ph) => a + (Number.isFinite(ph.launched) ? ph.launched : (ph.ratio ?? 1) * askedOf(ph)),
    0,
  );
  const durationS = phases.reduce((a, ph) => a + (ph.durationS ?? 0), 0);
  const whole = {
    targetRate: { mean: durationS ? asked / durationS : 0 },
    durationS,
    launched,
    ratio: asked ? launched / asked : null,
  };
  if (!launchedShort(whole, [whole])) return null;
  const cpu = summary.generator?.cpuPctMean;
  return `the generator launched ${Math.round(launched)} of the ${Math.round(asked)} arrivals asked${Number.isFinite(cpu) ? ` (${cpu}% of a core)` : ''}`;
}

// What the autoscaler did and whether the SLO held; when not, what to change.
//   level: the run judged (lab/capacity/level.js judgeLevel); a: its summary's autoscale
//   (lab/elastic/results.js); hpa: the HPA's numbers; p: { rate, slos }.
function autoscaleVerdict(level, a, hpa, p) {
  const counts = (a?.timeline || []).map((x) => x.replicas);
  const most = counts.length ? Math.max(...counts) : hpa.minReplicas;
  const peakAtS = counts.length ? a.timeline[counts.indexOf(most)].t : null;
  const last = counts.at(-1) ?? null;
  const scaledOut = most > hpa.minReplicas;
  const cameBack = scaledOut && last !== null && last < most;
  const peakCpuPct = Math.max(0, ...(a?.decisions || []).map((d) => d.average ?? 0));
  const slo = p.slos.map((x) => x.text).join(' and ');
  const figures = `p99 ${level.latencyMs?.p99 ?? '-'} ms of ${level.answered ?? 0} answers, errors ${level.errorsPct ?? '-'}%`;
  const did = scaledOut
    ? `scaled out to ${most} replica(s) (${peakAtS} s in)${cameBack ? `, and back to ${last} by the end` : `, and was still at ${last} at the end`}`
    : `stayed at ${hpa.minReplicas} replica(s) (the replicas' CPU peaked at ${Math.round(peakCpuPct)}% of their share)`;
  const base = {
    minReplicas: hpa.minReplicas,
    maxReplicas: hpa.maxReplicas,
    targetPct: hpa.target,
    most,
    peakAtS,
    last,
    scaledOut,
    cameBack,
    p99: level.latencyMs?.p99 ?? null,
    errorsPct: level.errorsPct ?? null,
    answers: level.answered ?? null,
  };
  const ramp = `a ramp from ${p.rate}/s to ${2 * p.rate}/s and back`;
  if (level.generatorBound)
    return {
      ...base,
      held: false,
      inconclusive: true,
      text: `no verdict on the autoscaler: ${level.generatorBound}; ${ramp} was never offered`,
    };
  if (level.ok) {
    const stayed = scaledOut && !cameBack ? notBack(a, hpa, p, last) : null;
    return {
      ...base,
      held: true,
      ...(stayed ? { change: stayed } : {}),
      text: `held ${slo} on ${ramp}: it ${did} (${figures})${stayed ? `; ${stayed}` : ''}`,
    };
  }
  const lower = Math.max(20, Math.round(hpa.target * 0.75));
  const change =
    most >= hpa.maxReplicas
      ? `it reached its maximum: raise maxReplicas above ${hpa.maxReplicas}`
      : scaledOut
        ? `it scaled out too late: lower the target utilization from ${hpa.target}% to about ${lower}%`
        : `it never scaled out: lower the target utilization from ${hpa.target}% to about ${Math.max(20, Math.min(lower, Math.round(peakCpuPct * 0.8)))}%`;
  const broke = (level.thresholds || []).filter((t) => !t.ok).map((t) => t.text);
  return {
    ...base,
    held: false,
    change,
    text: `did not hold ${slo} on ${ramp} (${broke.join(', ') || 'nothing answered'}; ${figures}): it ${did}; ${change}`,
  };
}

// Held, but still out at the end, back at the rate: what keeps it there. It comes back to
// min when ceil(last x average / target) <= min (Kubernetes' rule), so a target under
// last x average / min (and 10% over it, the rule's tolerance) keeps the replicas it added;
// above that, the run ended before its down window let it.
function notBack(a, hpa, p, last) {
  const end = (a?.decisions || [])
    .map((d) => d.average)
    .filter(Number.isFinite)
    .at(-1);
  const need = Number.isFinite(end) ? Math.ceil(((last * end) / hpa.minReplicas) * (1 + HPA_RULE.tolerance)) : null;
  if (need !== null && need > hpa.target)
    return `it did not come back to ${hpa.minReplicas} at ${p.rate}/s (its replicas' CPU ${Math.round(end)}% of their share at ${last}): raise the target utilization from ${hpa.target}% to about ${Math.min(90, need)}%`;
  return `it did not come back to ${hpa.minReplicas} by the end: the run ended within its down window (${hpa.downWindowS} s)`;
}

// Whether the check runs, and why not: -> null (it runs) or the reason. c: the chosen
// candidate (what its count was measured to hold says why its HPA has nothing to scale).
function autoscaleSkip(p, hpa, c = null) {
  if (!p.checkAutoscale) return 'not checked (--no-check-autoscale)';
  if (hpa.maxReplicas <= hpa.minReplicas) {
    const twice = 2 * headroomRate(p);
    const m = c?.measured;
    if (m && !m.atLeast && m.rate >= twice)
      return `not checked: the HPA has nothing to scale (${hpa.minReplicas} to ${hpa.maxReplicas} replicas): ${hpa.minReplicas} replica(s) were measured to hold ${m.rate}/s, more than twice the rate with its headroom (${twice}/s)`;
    return `not checked: the HPA cannot scale (${hpa.minReplicas} to ${hpa.maxReplicas} replicas)`;
  }
  return null;
}

// The check as the choice records it (choice.json's autoscaleCheck): run, or why not; a run
// that fails keeps the choice, which held, and says why there is no verdict.
async function autoscaleOf(p, c, s, hpa, dir, log) {
  const skip = autoscaleSkip(p, hpa, c);
  if (skip) {
    log(`autoscaler: ${skip}`);
    return { ran: false, text: skip };
  }
  try {
    return await checkAutoscale(p, c, s, hpa, path.join(dir, 'checks', 'autoscale'), log);
  } catch (err) {
    if (interrupted()) throw err;
    log(`autoscaler: no verdict: ${err.message}`);
    return { ran: false, failed: true, text: `no verdict: the run failed (${err.message})` };
  }
}

module.exports = { rampPhases, checkJob, checkAutoscale, autoscaleVerdict, autoscaleSkip, autoscaleOf, rampShort };
