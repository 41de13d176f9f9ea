'use strict';

const { searchCapacity } = require('./search');
const { verify } = require('./verify');
const { CHANGED, ownBreak } = require('./verdict');
const { othersRose } = require('./machine');

// One deployment's whole search, over a session's measure, recover and settle
// (./session.js, or a simulated one in the tests): the search (./search.js); then, once the
// knee is bracketed and the service has recovered, a probe at rest against the baseline
// (drift: ./drift.js); then the verification (./verify.js). A search that ended on a changed
// service, a level that could not run or its time limit is not verified: it did not find the
// system it started on, or has no time left. -> { found, verification }.
//   o: { measure(role) -> measure(rate, holdS) (role: null for the search's levels,
//        'verification', 'again'), recover, settle, limit, log, tag, pool? (./verify.js) }
async function searchDeployment(p, o) {
  const out = await searchAndVerify(p, o);
  // A search cut by its time limit says so where the user watches, not only in capacity.json
  // (the log once went from a level that held straight to the next deployment).
  const cut = [out.found.stop, out.found.settled, out.verification?.stop].find((x) => x?.kind === 'time-limit');
  if (cut) o.log(`${o.tag}: stopped at its time limit: ${cut.text}`);
  return out;
}

async function searchAndVerify(p, o) {
  // (o.from: where a sweep's count starts and how it steps, ./sweep-start.js.)
  const found = await searchCapacity(o.measure(null), {
    start: o.from?.start ?? p.start,
    ...(o.from ? { factor: o.from.factor } : {}),
    maxRate: p.maxRate,
    precision: p.precision,
    floor: p.floor,
    maxLevels: p.maxLevels,
    recover: o.recover,
    limit: o.limit,
    noisy: othersRose,
    atRest: o.atRest ?? (() => ({ text: 'no check at rest' })),
    stopBelow: p.stopBelow ?? null,
    recheck: p.recheck,
    calm: (level) => ownBreak(level, p),
  });
  // (A count stopped below --stop-below is not verified: it does not hold that rate.)
  const ended =
    CHANGED.includes(found.stop.kind) || ['level-failed', 'time-limit', 'stop-below'].includes(found.stop.kind);
  if (!found.held || ended) return { found, verification: null };
  if (o.settle) {
    found.settled = await settled(found, o);
    if (found.settled) return { found, verification: null };
  }
  const verification = await verify(p, found, {
    measure: o.measure('verification'),
    again: o.measure('again'),
    recover: o.recover,
    limit: o.limit,
    log: o.log,
    name: o.tag,
    ...(o.pool ? { pool: o.pool } : {}),
    ...(o.atRest ? { atRest: o.atRest } : {}),
  });
  return { found, verification };
}

// The service at rest once the knee is bracketed: recovered from the last level (a level at
// the knee leaves a queue, or a window of recent work, behind it), then probed against the
// baseline. -> a stop ({ kind: 'drift' | 'restarted' | 'no-recovery' | 'time-limit', ... }) or null.
async function settled(found, o) {
  const last = found.levels.at(-1);
  const why = o.limit({ what: 'settle', rate: last.rate });
  if (why) return { kind: 'time-limit', text: why };
  const r = await o.recover(last);
  if (!r.ok) {
    const kind = r.restarts?.length ? 'restarted' : 'no-recovery';
    return { kind, level: { ...last, ...(r.restarts ? { restarts: r.restarts } : {}) }, recovery: r };
  }
  const stop = await o.settle(r);
  // (Drift not judged on a busy machine: the search goes on to its verification, the row says
  // so and is not ranked.)
  if (stop?.kind === 'unjudged') {
    found.unjudged = stop.unjudged;
    o.log(`${o.tag}: ${stop.unjudged.text}`);
    return null;
  }
  if (stop) o.log(`${o.tag}: ${stop.kind === 'drift' ? stop.drift.text : 'a process restarted while at rest'}`);
  return stop;
}

module.exports = { searchDeployment };
