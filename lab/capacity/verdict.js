'use strict';

// What a deployment can take, from its search (./search.js) and verification: the rate, how
// it was verified, the run above it that broke the SLO, its latency and cost there, and
// whether this deployment was what set the limit. Where the generator could not go higher, or
// this machine's cores were all busy (generator included), the answer is "at least": a floor
// of what the deployment takes on a machine of its own, not its capacity.
const MACHINE_BUSY = 0.9;

const fig = (l) => ({
  rate: l.rate,
  answeredPerS: l.answeredPerS,
  p50: l.latencyMs?.p50 ?? null,
  p99: l.latencyMs?.p99 ?? null,
  max: l.latencyMs?.max ?? null,
  errorsPct: l.errorsPct,
  machineShare: l.machineShare,
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
  const busy = Math.max(...[found.held, ...last.runs].map((l) => l.machineShare ?? 0));
  let bound = 'deployment';
  let why = null;
  if (found.stop.kind === 'generator') {
    bound = 'generator';
    why = `the generator could not drive more than that: ${found.stop.level.generatorBound}`;
  } else if (found.stop.kind === 'max-rate') {
    bound = 'max-rate';
    why = `no level up to --max-rate ${p.maxRate}/s broke the SLO`;
  } else if (busy >= MACHINE_BUSY) {
    bound = 'machine';
    why = `this machine was the limit: its cores were ${Math.round(busy * 100)}% busy at that rate, the generator's ${at.generatorCpuPct ?? '-'}% of a core included`;
  }
  const maxRate = verified.ok ? verified.rate : found.held.rate;
  const atLeast = bound !== 'deployment';
  const cost = at.cost;
  return {
    ...base,
    maxRate,
    atLeast,
    bound,
    text: `${atLeast ? 'at least ' : ''}${maxRate}/s${why ? ` (${why})` : ''}${verified.ok ? '' : `; not verified: ${verified.held} of ${verified.runs} runs at ${verified.rate}/s held`}`,
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
