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
  coresShare: l.coresShare ?? null,
  sendLagP99Ms: l.sendLagP99Ms ?? null,
  dir: l.dir,
});

const brokeText = (l) =>
  (l.thresholds || [])
    .filter((t) => !t.ok)
    .map(
      (t) => `${t.text} (measured ${t.value ?? 'nothing'}${t.value !== null && t.value !== undefined ? t.unit : ''})`,
    )
    .join(' and ');

// The way on from a service that changed under the search, said wherever it is found.
const FRESH_HINT =
  '--fresh-per-level redeploys it (with a fresh database with --with) before each level, so each is measured on the system as it starts';

// A search that ended on a service that did not come back from an overload: no rate is a
// capacity of the system it started as. Returns the verdict's own fields, or null.
function changedUnder(found, verification) {
  const stop = found.stop;
  if (stop.kind === 'hysteresis') {
    return {
      bound: 'hysteresis',
      text: `${stop.first.rate}/s held at first but broke after the overload at ${stop.overload.rate}/s (${brokeText(stop.level)}): the service did not recover (its state grew, or its queue did not drain); ${FRESH_HINT}`,
    };
  }
  const stuck = stop.kind === 'no-recovery' ? stop : verification?.find((a) => a.notRecovered);
  if (!stuck) return null;
  const after = stop.kind === 'no-recovery' ? stop.level.rate : stuck.runs.at(-1).rate;
  const r = stop.kind === 'no-recovery' ? stop.recovery : stuck.notRecovered;
  return {
    bound: 'no-recovery',
    text: `after the overload at ${after}/s the service did not answer as it did before the search (${r?.text ?? 'no probe answered'}): the service did not recover (its state grew, or its queue did not drain); ${FRESH_HINT}`,
  };
}

function verdictOf(name, deployment, found, verification, p) {
  const base = {
    deployment: name,
    label: deployment.label,
    levels: found.levels.length,
    slos: p.slos.map((s) => s.text),
    // What a rate counts: arrivals of the scenario (a script's flow is several requests).
    unit: p.model ? 'scenarios' : 'requests',
    ...(found.recoveries?.length ? { recoveries: found.recoveries } : {}),
  };
  const changed = changedUnder(found, verification);
  // --profile: the knee, what the processes and stores spent their time on at the last level
  // that held and the first that broke.
  const knee = kneeOf(found, verification);
  if (knee) base.knee = knee;
  if (!found.held) {
    const l = (found.stop.kind === 'first-level' && found.stop.level) || found.broke || found.stop.level;
    if (changed) return { ...base, maxRate: null, ...changed, broke: fig(found.broke || l) };
    const lowest = found.broke || l;
    return {
      ...base,
      maxRate: null,
      bound: found.stop.kind === 'generator' ? 'generator' : 'first-level',
      text:
        found.stop.kind === 'generator'
          ? `no rate measured: at ${found.stop.level.rate}/s ${found.stop.level.generatorBound}`
          : lowest.rate < l.rate
            ? `no level held, from ${l.rate}/s down to ${lowest.rate}/s (the floor is ${found.stop.floor}/s, --min-rate): the lowest broke ${brokeText(lowest)}; try a looser --slo, or a lower --min-rate`
            : `the first level (${l.rate}/s) already breaks ${brokeText(l)}: try --start lower, or a looser --slo`,
      broke: { ...fig(lowest), failed: failedOf(lowest) },
    };
  }
  if (changed) {
    return {
      ...base,
      maxRate: null,
      ...changed,
      held: fig(found.held),
      broke: found.broke ? { ...fig(found.broke), failed: failedOf(found.broke) } : null,
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
    tries: verification.length,
    // The runs pooled (./verify.js's rule): their merged p99.
    pooledP99: last.pooled?.latencyMs?.p99 ?? null,
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
      text: `no verified rate: ${found.held.rate}/s held in the search, but no verification held, ${verified.tries} tries down to ${verified.rate}/s (the last: ${verified.held} of ${verified.runs} runs held on their own, p99 ${verified.pooledP99 ?? '-'} ms pooled): the deployment is unsteady near its limit, or this machine was busy; try --repetitions, a longer --hold, or a looser --slo`,
      verified,
      held: fig(found.held),
      broke: found.broke ? { ...fig(found.broke), failed: failedOf(found.broke) } : null,
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
    text: `${atLeast ? 'at least ' : ''}${rateText(maxRate, base.unit, at.answeredPerS)}${verified.tries > 1 ? `, verified at the ${ordinal(verified.tries)} try` : ''}${why ? ` (${why})` : ''}`,
    // Requests answered a second at that rate (a script's scenarios send several each).
    requestsPerS: at.answeredPerS ?? null,
    verified,
    held: fig(found.held),
    broke: found.broke ? { ...fig(found.broke), failed: failedOf(found.broke) } : null,
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

function kneeOf(found, verification) {
  const held = verification?.findLast?.((a) => a.ok)?.runs.at(-1) ?? found.held;
  const at = (l) => (l?.profile ? { rate: l.rate, dir: l.dir, ...l.profile } : null);
  const knee = { held: at(held), broke: at(found.broke) };
  return knee.held || knee.broke ? knee : null;
}

const failedOf = (l) => (l.thresholds || []).filter((t) => !t.ok).map((t) => t.text);
const ordinal = (n) =>
  `${n}${n % 10 === 1 && n % 100 !== 11 ? 'st' : n % 10 === 2 && n % 100 !== 12 ? 'nd' : n % 10 === 3 && n % 100 !== 13 ? 'rd' : 'th'}`;

// A rate in its units: a script's arrivals are scenarios, each of its requests, said beside.
function rateText(rate, unit, requestsPerS) {
  if (unit !== 'scenarios') return `${rate}/s`;
  return `${rate} scenarios/s${requestsPerS != null ? ` (${requestsPerS} requests/s answered)` : ''}`;
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

// Every deployment searched broke at about the same rate (within SAME_RATE of their middle
// one) with this machine's cores MACHINE_BUSY busy or more where it broke (the run's processes,
// or the whole machine's cores with the kernel's work for the connections): then the machine,
// not the deployment, set every limit, and ranking them would rank noise. (Two deployments of
// a real service's read path both bracketed about 1,000/s with the cores 87-91% busy, and the
// lab said nothing of it.) Returns { rate, text, rule } or null.
const SAME_RATE = 0.2;
function machineLimit(results, cores) {
  const rows = results.map((r) => ({ r, at: r.broke ?? null })).filter((x) => x.at && Number.isFinite(x.at.rate));
  if (rows.length < 2 || rows.length < results.length) return null;
  const rates = rows.map((x) => x.at.rate).sort((a, b) => a - b);
  const middle = rates[Math.floor(rates.length / 2)];
  if (rates.some((v) => Math.abs(v - middle) > SAME_RATE * middle)) return null;
  const busy = (x) =>
    Math.max(x.at.machineShare ?? 0, x.at.coresShare ?? 0, x.r.held?.machineShare ?? 0, x.r.held?.coresShare ?? 0);
  if (rows.some((x) => busy(x) < MACHINE_BUSY)) return null;
  const each = rows.map(
    (x) => `${x.r.deployment} broke at ${x.at.rate}/s, its cores ${Math.round(busy(x) * 100)}% busy`,
  );
  return {
    rate: middle,
    text: `this machine's ${cores} cores set the limit at about ${middle}/s for every deployment (${each.join('; ')}): the deployments cannot be told apart on this machine; run the service on more cores, cap the replicas (--cap replica=50%) so that the deployment is what runs out, or use a swarm (--engine swarm)`,
    rule: `every deployment broke within ${SAME_RATE * 100}% of the same rate, with the machine's cores ${MACHINE_BUSY * 100}% busy or more there (the run's processes' CPU, the generator's included, or the whole machine's, the kernel's included)`,
  };
}

module.exports = { verdictOf, perCore, machineLimit, MACHINE_BUSY, FRESH_HINT };
