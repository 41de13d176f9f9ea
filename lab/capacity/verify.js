'use strict';

const { judgePooled } = require('./level');
const { againDrift, costDrift } = require('./drift');

// The verification of a rate the search found: `repetitions` longer runs at it (each held for
// `verifyHoldFor(rate)` seconds, twice a level's hold by default, --verify-hold), judged
// together: it holds when every SLO holds on the runs pooled (their histograms merged:
// judgePooled in ./level.js), never by averaging their percentiles. That is what a capacity
// is: a rate held for a stated time. A rate that does not hold is stepped down: first twice by
// the search's precision, then in growing steps (2, 4, 8... times the precision, half at most)
// to the floor, MAX_TRIES tries in all, until one holds. At a noisy knee the 5% steps alone
// once stopped at "held 2 of 3, 1 of 3, 2 of 3": no verified rate on a service that plainly
// held a little lower.
// When the first try breaks at the very rate the search held, there are two stories, told
// apart before stepping down (./drift.js): the service changed under the search (the rate,
// measured again as the search measured it, breaks too: drift, and the verification stops),
// or its knee moves with how long the load lasts (it holds again for the search's hold:
// said, and the verification steps down to what holds for the longer time). On a fresh
// deployment per level only the second story can be.
const MAX_TRIES = 7;
const RULE =
  'every SLO held on the verification runs pooled (their per-second histograms merged, errors summed; percentiles never averaged)';

// How far each try steps down from the one before: the precision twice, then growing; half
// at most (a precision of 100%, the first bracket's, would step to nothing).
function stepDown(precision, tries) {
  return Math.min(0.5, tries < 2 ? precision : precision * 2 ** (tries - 1));
}

// -> { attempts: [{ rate, ok, runs, pooled }] (the last one the verdict's), again (the rate
// held measured again), moves (the knee moved with the hold: { rate, heldS, brokeS }), drift,
// stop ({ kind, ... }: what ended it early) }.
//   o: { measure(rate, holdS), again(rate, holdS) (the rate held measured again: measure, unless
//        the caller keeps them apart), recover(level) or null (a run that broke is followed by
//        it, as between the search's levels), limit({ what, rate }) (the time bound), log, name,
//        pool (how runs are judged together: judgePooled, over their folders) }
async function verify(
  p,
  found,
  {
    measure,
    again = measure,
    recover = null,
    limit = () => null,
    log = () => {},
    name,
    pool = judgePooled,
    atRest = () => null,
  },
) {
  let rate = found.held.rate;
  const attempts = [];
  const out = { attempts, again: [], moves: null, drift: null, stop: null };
  // After a run that broke: the service back to what it was, or the reason it is not.
  const recovered = async (run) => {
    if (!recover || run.resumed) return null;
    const why = limit({ what: 'recovery', rate: run.rate });
    if (why) return { kind: 'time-limit', text: why };
    const r = await recover(run);
    if (r.ok) return null;
    if (r.restarts?.length) return { kind: 'restarted', level: run, recovery: r };
    // (Drift carried as the search's recovery carries it: the verdict's sentence is its text.
    // Without it a verification ending on drift once crashed the verdict.)
    if (r.drift) return { kind: 'drift', level: run, recovery: r, drift: r.drift };
    return { kind: 'no-recovery', level: run, recovery: r };
  };
  // A run that ends the verification whatever it measured.
  const fatal = (run) => {
    if (run.failed) return { kind: 'level-failed', level: run };
    if (run.restarts?.length && recover) return { kind: 'restarted', level: run };
    return null;
  };
  for (let tries = 0; tries < MAX_TRIES && rate >= p.floor; tries++) {
    const runs = [];
    for (let i = 0; i < p.repetitions && !out.stop; i++) {
      const why = limit({ what: 'verification', rate });
      if (why) out.stop = { kind: 'time-limit', text: why };
      else {
        const run = await measure(rate, p.verifyHoldFor(rate));
        runs.push(run);
        out.stop = fatal(run) ?? (run.ok ? null : await recovered(run));
      }
    }
    if (!runs.length) break;
    const pooled = runs.length > 1 ? pool(runs, { slos: p.slos, expect: p.expect }) : { ok: runs[0].ok, runs: 1 };
    const ok = pooled.ok && !out.stop && runs.length === p.repetitions && runs.every((r) => !r.restarts);
    attempts.push({ rate, ok, runs, pooled, ...(out.stop?.recovery ? { notRecovered: out.stop.recovery } : {}) });
    log(
      `${name}: verification at ${rate}/s for ${runs[0].holdS} s: ${runs.filter((r) => r.ok).length} of ${runs.length} held on its own; pooled: ${pooled.ok ? 'held' : 'broke'}${pooled.latencyMs ? ` (p99 ${pooled.latencyMs.p99} ms)` : ''}${out.stop?.recovery ? `; ${out.stop.recovery.text}` : ''}`,
    );
    if (ok || out.stop) break;
    if (tries === 0 && rate === found.held.rate) {
      // (The same rate, costlier a request: the service changed; no need to measure it again.)
      const costly = costDrift(found.held, runs.find((r) => !r.ok) ?? runs[0]);
      if (costly) {
        out.drift = costly;
        break;
      }
      // (How often the search held this rate: twice, its level and the measure again before
      // bisecting, is evidence it held; once, at the knee's edge, is not.)
      const heldTimes = (found.levels || []).filter((l) => l.rate === rate && l.ok).length;
      const told = await tellApart(p, found.held, runs.find((r) => !r.ok) ?? runs[0], heldTimes, {
        measure: again,
        recover: recover && recovered,
        limit,
        log,
        name,
        atRest,
      });
      Object.assign(out, told);
      if (out.drift || out.stop) break;
    }
    rate = Math.round(rate * (1 - stepDown(p.precision, tries)) * 10) / 10;
  }
  return out;
}

// The first verification broke at the rate the search held: measured again as the search
// measured it (its hold), twice at most; both broke is drift, one held is a knee that moves
// with the hold. On a fresh deployment per level (no `recover`) nothing changed under it.
async function tellApart(p, held, broke, heldTimes, { measure, recover, limit, log, name, atRest }) {
  const moves = { rate: held.rate, heldS: held.holdS, brokeS: broke.holdS };
  if (!recover) return { moves };
  const again = [];
  for (let i = 0; i < 2; i++) {
    const why = limit({ what: 'level', rate: held.rate });
    if (why) return { again, stop: { kind: 'time-limit', text: why } };
    const level = await measure(held.rate, p.holdFor(held.rate));
    again.push(level);
    log(
      `${name}: ${held.rate}/s again for ${level.holdS} s, as the search measured it: p99 ${level.latencyMs?.p99 ?? '-'} ms, ${level.ok ? 'held' : 'broke'}`,
    );
    if (level.failed) return { again, stop: { kind: 'level-failed', level } };
    if (level.restarts?.length) return { again, stop: { kind: 'restarted', level } };
    if (level.ok) return { again, moves };
    const stopped = await recover(level);
    if (stopped) return { again, stop: stopped };
  }
  // (Broken again twice, but held only once in the search or on a machine too busy to tell: no
  // claim, the verification steps down.)
  return { again, drift: againDrift(held, broke, again, heldTimes, atRest()) };
}

module.exports = { verify, stepDown, MAX_TRIES, RULE };
