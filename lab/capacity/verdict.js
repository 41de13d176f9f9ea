'use strict';

// What a deployment can take, from its search (./search.js) and verification: the rate, how
// it was verified, the run above it that broke the SLO, its latency and cost there, and
// whether this deployment was what set the limit. Where the generator could not go higher, or
// this machine's cores were all busy (generator included), the answer is "at least": a floor
// of what the deployment takes on a machine of its own, not its capacity.
const { MACHINE_BUSY, WAITED, OTHERS_BUSY, levelBusy, machineBusy, waitedShare, othersBusy } = require('./machine');

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

const { driftText } = require('./drift');
const { restartText } = require('../runtime/pm2-restarts');

const fig = (l) => ({
  rate: l.rate,
  answeredPerS: l.answeredPerS,
  p50: l.latencyMs?.p50 ?? null,
  p99: l.latencyMs?.p99 ?? null,
  max: l.latencyMs?.max ?? null,
  errorsPct: l.errorsPct,
  machineShare: l.machineShare,
  coresShare: l.coresShare ?? null,
  waitShare: l.waitShare ?? null,
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

// The bounds that say the service changed under its search: no rate it found is a capacity of
// the system it started as, and deployments searched on it are not ranked against each other.
const CHANGED = ['hysteresis', 'no-recovery', 'drift', 'restarted'];

// What ended the search or its verification early, when it says the service changed: the
// verdict's own fields ({ bound, text }), or null.
function changedUnder(found, verification) {
  const stops = [found.stop, found.settled, verification?.stop].filter(Boolean);
  if (verification?.drift) stops.push({ kind: 'drift', drift: verification.drift });
  const stop = stops.find((x) => CHANGED.includes(x.kind));
  if (!stop) return null;
  if (stop.kind === 'hysteresis') {
    return {
      bound: 'hysteresis',
      text: `${stop.first.rate}/s held at first but broke after the overload at ${stop.overload.rate}/s, twice (${brokeText(stop.level)})${stop.atRest?.rule ? `, and ${stop.atRest.text}` : ''}: the service changed under the search (drift: its state grew, or its queue did not drain); ${FRESH_HINT}`,
    };
  }
  if (stop.kind === 'drift') return { bound: 'drift', drift: stop.drift, text: driftText(stop.drift) };
  if (stop.kind === 'restarted') {
    const restarts = stop.level?.restarts ?? stop.recovery?.restarts ?? [];
    return {
      bound: 'restarted',
      text: `${restartText(restarts)} at ${stop.level.rate}/s: the service crashed under the search, and every level after it would measure a service that started over, so no rate is its capacity (its logs: logs/ of the state folder); ${FRESH_HINT}, so a crash breaks only its level`,
    };
  }
  const r = stop.recovery;
  return {
    bound: 'no-recovery',
    text: `after the overload at ${stop.level.rate}/s the service did not answer as it did before the search (${r?.text ?? 'no probe answered'}): the service did not recover (drift: its state grew, or its queue did not drain); ${FRESH_HINT}`,
  };
}

// How long a rate held: "held for 40 s (3 runs pooled)".
const heldFor = (v) => `held for ${v.holdS} s${v.runs > 1 ? ` (${v.runs} runs pooled)` : ''}`;

// What ended a search early without a changed service: a level that could not run, the time
// limit. -> the verdict's fields, or null.
function endedEarly(found, verification, p) {
  const stop = [found.stop, found.settled, verification?.stop].find(
    (x) => x && ['level-failed', 'time-limit'].includes(x.kind),
  );
  if (!stop) return null;
  const bracket = found.held
    ? `; ${found.held.rate}/s held${found.broke ? ` and ${found.broke.rate}/s broke` : ''} before it, not verified`
    : '';
  if (stop.kind === 'level-failed') {
    return { bound: 'failed', text: `the level at ${stop.level.rate}/s could not run: ${stop.level.failed}${bracket}` };
  }
  return {
    bound: 'time-limit',
    text: `the search stopped at its time limit after ${found.levels.length} level(s): ${stop.text}${bracket}; a longer --time-limit (now ${p.timeLimitS} s a deployment) lets it end`,
  };
}

// The deployment's processes hardly waited for a core at these levels (under WAITED of the
// time, measured).
const waitedLittle = (levels) => {
  const waited = waitedShare(levels);
  return waited !== null && waited < WAITED;
};

// The largest share of the machine the run's own processes took at these levels.
const ownShare = (levels) => Math.max(0, ...levels.filter(Boolean).map((l) => l.machineShare ?? 0));

// This machine held the deployment back at these levels: its cores were busy, and not only with
// other work while the deployment's processes hardly waited for a core (then its limit was its
// own).
function machineHeldBack(levels) {
  if (machineBusy(levels) < MACHINE_BUSY) return false;
  return !(ownShare(levels) < MACHINE_BUSY && waitedLittle(levels));
}

// A level whose break is the deployment's own (capacity --stop-below ends a search on it, by
// the rules above): the generator was not late enough to explain it, the machine did not hold
// it back, and other programs' work did not take a quarter of the machine while the
// deployment's processes waited for a core (a paced service beside five test files waited
// 3-12%). Otherwise the search goes on, as without the flag, and its verdict says whose limit
// it was.
const ownBreak = (level, p) =>
  lateGenerator(level, p) === null &&
  !machineHeldBack([level]) &&
  (othersBusy([level]) < OTHERS_BUSY || waitedLittle([level]));

function verdictOf(name, deployment, found, verification, p) {
  const base = {
    deployment: name,
    label: deployment.label,
    levels: found.levels.length,
    slos: p.slos.map((s) => s.text),
    // What a rate counts: arrivals of the scenario (a script's flow is several requests).
    unit: p.model ? 'scenarios' : 'requests',
    ...(found.recoveries?.length ? { recoveries: found.recoveries } : {}),
    // (--recheck: each break measured once more, and whether it held then: [{ rate, held }].)
    ...(found.rechecks ? { rechecks: found.rechecks } : {}),
    // (Its probe at rest slower on a machine busy with other work: drift not judged, said.)
    ...(found.unjudged ? { driftUnjudged: found.unjudged.text } : {}),
    ...(found.levels.some((l) => l.restarts) ? { restarts: restartsSeen(found, verification) } : {}),
  };
  const attempts = verification?.attempts ?? [];
  const bracket = () => ({
    ...(found.held ? { held: fig(found.held) } : {}),
    broke: found.broke ? { ...fig(found.broke), failed: failedOf(found.broke) } : null,
  });
  // --profile: the knee, what the processes and stores spent their time on at the last level
  // that held and the first that broke.
  const knee = kneeOf(found, attempts);
  if (knee) base.knee = knee;
  const changed = changedUnder(found, verification);
  if (changed) return { ...base, maxRate: null, ...changed, ...bracket() };
  const early = endedEarly(found, verification, p);
  if (early) return { ...base, maxRate: null, ...early, ...bracket() };
  // Stopped at a break at or below --stop-below (./search.js): no capacity, a bound from above.
  if (found.stop.kind === 'stop-below') {
    const b = found.broke;
    const held = found.held ? `; ${found.held.rate}/s held for ${found.held.holdS} s before it` : '';
    return {
      ...base,
      maxRate: null,
      bound: 'stop-below',
      below: b.rate,
      stopBelow: found.stop.rate,
      text: `below ${found.stop.rate}/s: ${b.rate}/s broke ${brokeText(b)} in the search${held}; stopped there (--stop-below ${found.stop.rate}): a verification only steps down from what held, so it does not hold ${found.stop.rate}/s (not bisected, not verified)`,
      ...bracket(),
    };
  }
  if (!found.held) {
    const l = (found.stop.kind === 'first-level' && found.stop.level) || found.broke || found.stop.level;
    const lowest = found.broke || l;
    const texts = {
      generator: () => `no rate measured: at ${found.stop.level.rate}/s ${found.stop.level.generatorBound}`,
      'max-levels': () =>
        `no level held in the search's ${found.stop.maxLevels} levels (--max-levels), down to ${lowest.rate}/s`,
      'first-level': () =>
        lowest.rate < l.rate
          ? `no level held, from ${l.rate}/s down to ${lowest.rate}/s (the floor is ${found.stop.floor}/s, --min-rate${lowest.rate > found.stop.floor ? `; rates are measured to 0.1/s, so ${lowest.rate}/s was the lowest` : ''}): the lowest broke ${brokeText(lowest)}; try a looser --slo${lowest.rate > found.stop.floor ? '' : ', or a lower --min-rate'}`
          : `the first level (${l.rate}/s) already breaks ${brokeText(l)}: try --start lower, or a looser --slo`,
    };
    return {
      ...base,
      maxRate: null,
      bound:
        found.stop.kind === 'generator' ? 'generator' : found.stop.kind === 'max-levels' ? 'max-levels' : 'first-level',
      text: (texts[found.stop.kind] ?? texts['first-level'])(),
      broke: lowest ? { ...fig(lowest), failed: failedOf(lowest) } : null,
    };
  }
  const last = attempts[attempts.length - 1];
  const verified = {
    rate: last.rate,
    ok: last.ok,
    runs: last.runs.length,
    held: last.runs.filter((r) => r.ok).length,
    p99: last.runs.map((r) => r.latencyMs?.p99 ?? null),
    errorsPct: last.runs.map((r) => r.errorsPct),
    holdS: last.runs[0].holdS,
    steppedDown: attempts.length - 1,
    tries: attempts.length,
    // The runs pooled (./verify.js's rule): their merged p99.
    pooledP99: last.pooled?.latencyMs?.p99 ?? null,
  };
  // The rate the search held broke when held longer, and held again as the search held it:
  // the knee moves with how long the load lasts (./verify.js).
  const moves = verification.moves
    ? {
        ...verification.moves,
        text: `${verification.moves.rate}/s held for ${verification.moves.heldS} s but not for ${verification.moves.brokeS} s: the knee moves with how long the load lasts (--verify-hold sets how long a capacity must hold)`,
      }
    : null;
  const at = last.runs[last.runs.length - 1];
  const busy = machineBusy([found.broke, ...last.runs]);
  const late = lateGenerator(found.broke, p);
  let bound = 'deployment';
  let why = null;
  // The machine's limit came from other programs' work, not this run's: the same system may
  // hold more when they are done (such a search is run again: ./search-again.js).
  let otherWork = false;
  if (found.stop.kind === 'generator') {
    bound = 'generator';
    why = `the generator could not drive more than that: ${found.stop.level.generatorBound}`;
  } else if (found.stop.kind === 'max-rate') {
    bound = 'max-rate';
    why = `no level up to --max-rate ${p.maxRate}/s broke the SLO`;
  } else if (found.stop.kind === 'max-levels' && !found.broke) {
    bound = 'max-levels';
    why = `the search's ${found.stop.maxLevels} levels (--max-levels) ended before a level broke the SLO`;
  } else if (machineHeldBack([found.broke, ...last.runs])) {
    // (A busy machine makes the generator late too: the cause is said, not the symptom. Busy
    // with the run's own processes, the machine was the limit; busy with other work while the
    // deployment waited for cores, it may hold more on a machine of its own.)
    bound = 'machine';
    const own = ownShare([found.broke, ...last.runs]);
    const waited = waitedShare([found.broke, ...last.runs]);
    const waitText =
      waited !== null ? `, its processes waiting for a core ${Math.round(waited * 100)}% of the time` : '';
    otherWork = own < MACHINE_BUSY;
    why =
      own >= MACHINE_BUSY
        ? `this machine was the limit: its cores were ${Math.round(busy * 100)}% busy, the generator's ${at.generatorCpuPct ?? '-'}% of a core included${waitText}`
        : `this machine was busy with other work: its cores were ${Math.round(busy * 100)}% busy, this run's own processes ${Math.round(own * 100)}%${waitText}; on a machine of its own the deployment may hold more`;
  } else if (late !== null) {
    bound = 'generator';
    // (Late while other programs took a quarter of the machine or more: the generator waited
    // for a core as much as the deployment did, and the search is run once more, as for the
    // machine's limit: ./search-again.js. A sweep's two counts were once left out of its fit so
    // in CI.)
    const others = othersBusy([found.broke, ...last.runs]);
    otherWork = others >= OTHERS_BUSY;
    why = `the generator was late at ${found.broke.rate}/s (p99 send lag ${late} ms, which the latency that broke the SLO includes)${otherWork ? `, other programs taking ${Math.round(others * 100)}% of this machine` : ''}: the break is its as much as the deployment's`;
  }
  // A rate no verification held is not a capacity: the search's level held once, and the
  // longer runs at it (and the rates stepped down from it) did not every time. It is said,
  // with what held, and left out of "most per core" (it was once reported as the capacity).
  if (!verified.ok) {
    return {
      ...base,
      maxRate: null,
      bound: 'unverified',
      text: `no verified rate: ${found.held.rate}/s held for ${found.held.holdS} s in the search, but no verification held for ${verified.holdS} s, ${verified.tries} tries down to ${verified.rate}/s (the last: ${verified.held} of ${verified.runs} runs held on their own, p99 ${verified.pooledP99 ?? '-'} ms pooled): the deployment is unsteady near its limit, or this machine was busy; try --repetitions, a longer --hold, or a looser --slo`,
      verified,
      ...(moves ? { moves } : {}),
      ...bracket(),
    };
  }
  const maxRate = verified.rate;
  const atLeast = bound !== 'deployment';
  // A bracket wider than the precision: the search's bound on levels ended the bisection.
  const coarse =
    found.stop.kind === 'max-levels' && found.broke
      ? `, bracketed only to ${found.held.rate}-${found.broke.rate}/s (the search's ${found.stop.maxLevels} levels, --max-levels)`
      : '';
  const cost = at.cost;
  return {
    ...base,
    maxRate,
    atLeast,
    bound,
    ...(otherWork ? { otherWork } : {}),
    text: `${atLeast ? 'at least ' : ''}${rateText(maxRate, base.unit, at.answeredPerS)} ${heldFor(verified)}${verified.tries > 1 ? `, verified at the ${ordinal(verified.tries)} try` : ''}${coarse}${why ? ` (${why})` : ''}${moves ? `; ${moves.text}` : ''}${base.driftUnjudged ? `; ${base.driftUnjudged}` : ''}`,
    // How long the capacity held: each verification run's hold.
    heldS: verified.holdS,
    // How busy this machine was where the limit was read (machineBusy).
    busy: Math.round(busy * 1000) / 1000,
    // Requests answered a second at that rate (a script's scenarios send several each).
    requestsPerS: at.answeredPerS ?? null,
    verified,
    ...(moves ? { moves } : {}),
    ...bracket(),
    p50: at.latencyMs?.p50 ?? null,
    p99: at.latencyMs?.p99 ?? null,
    cpuMsPerRequest: cost.cpuMsPerRequest,
    cpuMsPerRequestByTier: cost.tiers,
    cpuCores: cost.cpuCores,
    memoryMiB: cost.memoryMiB,
    replicaMemoryMiB: cost.replicaMemoryMiB ?? null,
    // Answers a second for each core of CPU the deployment used at that rate.
    perCore: cost.cpuMsPerRequest ? Math.round(1000 / cost.cpuMsPerRequest) : null,
  };
}

// Every restart seen, with the rate of the level it happened under.
function restartsSeen(found, verification) {
  const all = [...found.levels, ...(verification?.attempts ?? []).flatMap((a) => a.runs)];
  return all
    .filter((l) => l.restarts)
    .map((l) => ({ rate: l.rate, text: `${restartText(l.restarts)} at ${l.rate}/s` }));
}

function kneeOf(found, attempts) {
  const held = attempts.findLast((a) => a.ok)?.runs.at(-1) ?? found.held;
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

// The deployment that holds the most per core of CPU it uses, named with its figure; none
// when a deployment's search found the service changing under it (its figures depend on when
// each search ran, not on the deployment: a study once ranked four deployments of a drifting
// service by the order they were searched in).
function perCore(results) {
  if (notRanked(results)) return null;
  const ok = results.filter((r) => r.maxRate !== null && r.perCore);
  if (!ok.length) return null;
  const best = ok.reduce((a, r) => (r.perCore > a.perCore ? r : a));
  // (--node: the same deployment once a version, named with its Node.)
  const name = `${best.deployment}${best.node ? ` on Node ${best.node.version}` : ''}`;
  return {
    deployment: best.deployment,
    ...(best.node ? { node: best.node.version } : {}),
    perCore: best.perCore,
    text: `${name} holds the most per core: ${best.perCore} answers a second for each core of CPU it used (${best.cpuMsPerRequest} ms a request)`,
  };
}

// Why the deployments are not ranked, when a search found the service changing: the sentence.
// Nor when drift could not be judged for a deployment (a machine busy with other work while its
// probe at rest answered slower): its figures may be those of a changed service.
function notRanked(results) {
  if (results.length < 2) return null;
  const changed = results.filter((r) => CHANGED.includes(r.bound));
  if (changed.length)
    return `not ranked: the service changed under the search of ${changed.map((r) => r.deployment).join(', ')} (${[...new Set(changed.map((r) => r.bound))].join(', ')}), so the figures of each deployment depend on the state the service was in when it was searched, not on the deployment; ${FRESH_HINT}`;
  const doubt = results.filter((r) => r.driftUnjudged);
  if (doubt.length)
    return `not ranked: for ${doubt.map((r) => r.deployment).join(', ')} ${doubt[0].driftUnjudged}${doubt.length > 1 ? ' (and likewise for the others)' : ''}, so its figures may be those of a changed service; search again on a quieter machine, or with --fresh-per-level`;
  return null;
}

// Every deployment searched broke at about the same rate (within SAME_RATE of their middle
// one), and each was limited by this machine by the rows' own rule (MACHINE_BUSY busy or
// more at the level that broke or at the rate verified): then the machine, not the
// deployment, set every limit, and ranking them would rank noise. (Two deployments of a real
// service's read path both bracketed about 1,000/s with the cores 87-91% busy, and the lab
// said nothing of it.) Returns { rate, text, rule } or null.
const SAME_RATE = 0.2;
function machineLimit(results, cores) {
  const rows = results.map((r) => ({ r, at: r.broke ?? null })).filter((x) => x.at && Number.isFinite(x.at.rate));
  if (rows.length < 2 || rows.length < results.length) return null;
  const rates = rows.map((x) => x.at.rate).sort((a, b) => a - b);
  const middle = rates[Math.floor(rates.length / 2)];
  if (rates.some((v) => Math.abs(v - middle) > SAME_RATE * middle)) return null;
  const busy = (x) => Math.max(x.r.busy ?? 0, levelBusy(x.at));
  // (A deployment whose processes hardly waited for a core was not held back by the machine.)
  const heldBack = (x) =>
    (x.at.machineShare ?? 0) >= MACHINE_BUSY || !(Number.isFinite(x.at.waitShare) && x.at.waitShare < WAITED);
  if (rows.some((x) => busy(x) < MACHINE_BUSY || !heldBack(x))) return null;
  const each = rows.map(
    (x) => `${x.r.deployment} broke at ${x.at.rate}/s, its cores ${Math.round(busy(x) * 100)}% busy`,
  );
  return {
    rate: middle,
    text: `this machine's ${cores} cores set the limit at about ${middle}/s for every deployment (${each.join('; ')}): the deployments cannot be told apart on this machine; run the service on more cores, cap the replicas (--cap replica=50%) so that the deployment is what runs out, or use a swarm (--engine swarm)`,
    rule: MACHINE_RULE,
  };
}
const MACHINE_RULE = `a deployment is limited by this machine when its cores were ${MACHINE_BUSY * 100}% busy or more at the level that broke the SLO or at the rate verified (the run's processes' CPU, the generator's included, or the whole machine's, the kernel's included) and, when other programs made them busy, the deployment's processes waited for a core ${WAITED * 100}% of the time or more (their run-queue wait, /proc/PID/schedstat); every deployment so limited, within ${SAME_RATE * 100}% of the same rate, is the machine's limit, and nothing is ranked`;

module.exports = {
  verdictOf,
  perCore,
  notRanked,
  machineLimit,
  machineBusy,
  MACHINE_BUSY,
  MACHINE_RULE,
  FRESH_HINT,
  CHANGED,
  ownBreak,
};
