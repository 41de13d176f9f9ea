'use strict';

// What a deployment can take, from its search (./search.js) and verification: the rate, how
// it was verified, the run above it that broke the SLO, its latency and cost there, and
// whether this deployment was what set the limit. Where the generator could not go higher, or
// this machine's cores were all busy (generator included), the answer is "at least": a floor
// of what the deployment takes on a machine of its own, not its capacity.
// The machine counts as the limit from this share of its cores busy (every node's CPU and the
// generator's): past it, the kernel's own work for the connections (loopback TCP, not counted
// in any process) takes the rest. /ping on single broke at 3,100/s with the processes' CPU at
// 86% of both cores, the generator 85% of one.
const MACHINE_BUSY = 0.85;

// The generator was late enough at the rate that broke the SLO for its lateness (which the
// latency, timed from due times, includes) to be part of the break: a p99 send lag over 5 ms
// and over a tenth of the SLO's latency limit, and a break its lateness explains: what broke
// was latency only, and the latency less the lateness would have held (p99 of 2,402 ms with a
// 30 ms lag is the deployment's: a saturated sweep of capped replicas was once all "at least").
function lateGenerator(broke, p) {
  if (!broke || broke.sendLagP99Ms == null) return null;
  const latency = (p.slos || []).filter((t) => /^(p\d+|max|mean)$/.test(t.metric));
  const limits = latency.map((t) => t.limit);
  const line = Math.max(5, 0.1 * Math.min(...limits, Infinity));
  if (broke.sendLagP99Ms <= line) return null;
  const failed = (broke.thresholds || []).filter((t) => !t.ok);
  if (failed.some((t) => !/^(p\d+|max|mean)$/.test(t.metric ?? String(t.text).replace(/[{<>=].*$/, '')))) return null;
  const worst = Math.max(...failed.map((t) => (t.value ?? 0) - (t.limit ?? Infinity)), -Infinity);
  if (failed.length && worst > broke.sendLagP99Ms) return null;
  return broke.sendLagP99Ms;
}

const fig = (l) => ({
  rate: l.rate,
  answeredPerS: l.answeredPerS,
  p50: l.latencyMs?.p50 ?? null,
  p99: l.latencyMs?.p99 ?? null,
  max: l.latencyMs?.max ?? null,
  errorsPct: l.errorsPct,
  machineShare: l.machineShare,
  sendLagP99Ms: l.sendLagP99Ms ?? null,
  dir: l.dir,
});

function verdictOf(name, deployment, found, verification, p) {
  const base = {
    deployment: name,
    label: deployment.label,
    levels: found.levels.length,
    slos: p.slos.map((s) => s.text),
  };
  if (!found.held) {
    const l = found.broke || found.stop.level;
    const failed = (l.thresholds || []).filter((t) => !t.ok);
    return {
      ...base,
      maxRate: null,
      bound: found.stop.kind === 'generator' ? 'generator' : 'first-level',
      text:
        found.stop.kind === 'generator'
          ? `no rate measured: at the first level (${l.rate}/s) ${l.generatorBound}`
          : `the first level (${l.rate}/s) already breaks ${failed.map((t) => `${t.text} (measured ${t.value ?? 'nothing'}${t.value !== null ? t.unit : ''})`).join(' and ')}: try --start lower, or a looser --slo`,
      broke: fig(l),
    };
  }
  const last = verification[verification.length - 1];
  const verified = {
    rate: last.rate,
    ok: last.ok,
    runs: last.runs.length,
    held: last.runs.filter((r) => r.ok).length,
    p99: last.runs.map((r) => r.latencyMs?.p99 ?? null),
    errorsPct: last.runs.map((r) => r.errorsPct),
    holdS: last.runs[0].holdS,
    steppedDown: verification.length - 1,
  };
  const at = last.runs[last.runs.length - 1];
  const busy = Math.max(...[found.held, found.broke, ...last.runs].filter(Boolean).map((l) => l.machineShare ?? 0));
  const late = lateGenerator(found.broke, p);
  let bound = 'deployment';
  let why = null;
  if (found.stop.kind === 'generator') {
    bound = 'generator';
    why = `the generator could not drive more than that: ${found.stop.level.generatorBound}`;
  } else if (found.stop.kind === 'max-rate') {
    bound = 'max-rate';
    why = `no level up to --max-rate ${p.maxRate}/s broke the SLO`;
  } else if (busy >= MACHINE_BUSY) {
    // (A busy machine makes the generator late too: the cause is said, not the symptom.)
    bound = 'machine';
    why = `this machine was the limit: its cores were ${Math.round(busy * 100)}% busy, the generator's ${at.generatorCpuPct ?? '-'}% of a core included`;
  } else if (late !== null) {
    bound = 'generator';
    why = `the generator was late at ${found.broke.rate}/s (p99 send lag ${late} ms, which the latency that broke the SLO includes): the break is its as much as the deployment's`;
  }
  // A rate no verification held is not a capacity: the search's level held once, and the
  // longer runs at it (and the rates stepped down from it) did not every time. It is said,
  // with what held, and left out of "most per core" (it was once reported as the capacity).
  if (!verified.ok) {
    return {
      ...base,
      maxRate: null,
      bound: 'unverified',
      text: `no verified rate: ${found.held.rate}/s held in the search, but ${verified.held} of ${verified.runs} verification runs at ${verified.rate}/s held${verified.steppedDown ? ` (after ${verified.steppedDown} step(s) down)` : ''}: the deployment is unsteady near its limit, or this machine was busy; try --repetitions, a longer --hold, or a looser --slo`,
      verified,
      held: fig(found.held),
      broke: found.broke
        ? { ...fig(found.broke), failed: found.broke.thresholds.filter((t) => !t.ok).map((t) => t.text) }
        : null,
    };
  }
  const maxRate = verified.rate;
  const atLeast = bound !== 'deployment';
  const cost = at.cost;
  return {
    ...base,
    maxRate,
    atLeast,
    bound,
    text: `${atLeast ? 'at least ' : ''}${maxRate}/s${why ? ` (${why})` : ''}`,
    verified,
    held: fig(found.held),
    broke: found.broke
      ? { ...fig(found.broke), failed: found.broke.thresholds.filter((t) => !t.ok).map((t) => t.text) }
      : null,
    p50: at.latencyMs?.p50 ?? null,
    p99: at.latencyMs?.p99 ?? null,
    cpuMsPerRequest: cost.cpuMsPerRequest,
    cpuMsPerRequestByTier: cost.tiers,
    cpuCores: cost.cpuCores,
    memoryMiB: cost.memoryMiB,
    // Answers a second for each core of CPU the deployment used at that rate.
    perCore: cost.cpuMsPerRequest ? Math.round(1000 / cost.cpuMsPerRequest) : null,
  };
}

// The deployment that holds the most per core of CPU it uses, named with its figure.
function perCore(results) {
  const ok = results.filter((r) => r.maxRate !== null && r.perCore);
  if (!ok.length) return null;
  const best = ok.reduce((a, r) => (r.perCore > a.perCore ? r : a));
  return {
    deployment: best.deployment,
    perCore: best.perCore,
    text: `${best.deployment} holds the most per core: ${best.perCore} answers a second for each core of CPU it used (${best.cpuMsPerRequest} ms a request)`,
  };
}

module.exports = { verdictOf, perCore, MACHINE_BUSY };
