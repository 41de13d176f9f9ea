'use strict';

const { phaseRates } = require('../../artillery/phases');
const { mergedFigures } = require('../measure/records');
const { failedAnswers } = require('../results/expect-status');
const { triedBy } = require('../measure/upstream');

// What the replicas' changes did to the run (--autoscale, --rollout-at): from the record of
// the changes (lab/run/elastic.js) and the generator's seconds. Pure, so that the report and a
// rebuilt summary read the same figures.
//   timeline:        each second of the load, the replicas there were and those in the entry;
//   replica-seconds: the replicas' time, summed (the cost), against MIN and MAX held fixed;
//   spikes:          each spike of the plan (a phase at twice the rate before it, or more): how
//                    long from its start until p99 was back under the SLO for good (5 s in a
//                    row), with the replicas before and at the end, and the failed requests
//                    meanwhile;
//   rollout:         the replicas replaced, and every failed request of its window by cause.

const HOLD_S = 5;
const r1 = (v) => Math.round(v * 10) / 10;

// [{ name, from (ms), to (ms), readyFrom, readyTo }] for every replica the load saw.
function lifetimes(elastic, endMs) {
  const t0 = elastic.t0;
  const by = new Map(elastic.initial.map((n) => [n, { name: n, from: t0, to: endMs, readyFrom: t0, readyTo: endMs }]));
  for (const c of elastic.changes) {
    if (c.added)
      by.set(c.added.name, {
        name: c.added.name,
        from: c.added.startedAt,
        to: endMs,
        readyFrom: c.added.joinedAt,
        readyTo: endMs,
      });
    if (c.removed && by.has(c.removed.name)) {
      const l = by.get(c.removed.name);
      l.readyTo = Math.min(l.readyTo, c.removed.leftAt);
      l.to = Math.min(l.to, c.removed.exitedAt);
    }
  }
  return [...by.values()];
}

function timelineOf(lives, t0, endMs) {
  const out = [];
  for (let at = t0; at < endMs; at += 1000) {
    const mid = at + 500;
    out.push({
      t: (at - t0) / 1000,
      replicas: lives.filter((l) => l.from <= mid && l.to > mid).length,
      ready: lives.filter((l) => l.readyFrom <= mid && l.readyTo > mid).length,
    });
  }
  return out;
}

const replicaSecondsOf = (lives, t0, endMs) =>
  r1(lives.reduce((a, l) => a + Math.max(0, Math.min(l.to, endMs) - Math.max(l.from, t0)), 0) / 1000);

// The spikes of a plan: phases whose rate is at least twice the one before, in seconds from its
// start. -> [{ startS, endS, fromRate, toRate }]
function spikesOf(phases) {
  const out = [];
  let t = 0;
  let before = null;
  for (const ph of phases) {
    const { from, to } = phaseRates(ph);
    const rate = Math.max(from, to);
    if (before !== null && before > 0 && rate >= 2 * before) {
      const last = out.at(-1);
      if (last && last.endS === t) ((last.endS = t + ph.duration), (last.toRate = Math.max(last.toRate, rate)));
      else out.push({ startS: t, endS: t + ph.duration, fromRate: before, toRate: rate });
    } else if (out.length && out.at(-1).endS === t && rate >= out.at(-1).toRate / 2) {
      out.at(-1).endS = t + ph.duration;
    }
    before = rate;
    t += ph.duration;
  }
  return out;
}

// Failed requests in a second: errors (no answer) and answers that are failures.
const failedIn = (s, expect) =>
  Object.values(s.errors || {}).reduce((a, n) => a + n, 0) + failedAnswers(s.codes, expect).count;

function p99Of(s) {
  const f = mergedFigures([s], 'latency');
  return f ? f.p99 : null;
}

// From the spike's start: the first second after which p99 (with no failed request) stayed
// under the SLO for HOLD_S seconds; null when the load ended first.
function recoveryOf(spike, secs, t0, { sloMs, expect, endS }) {
  const at = (s) => (s.at - t0) / 1000;
  const after = secs.filter((s) => at(s) >= spike.startS && at(s) < endS);
  const ok = (s) => failedIn(s, expect) === 0 && (p99Of(s) ?? Infinity) <= sloMs;
  let failed = 0;
  for (let i = 0; i < after.length; i++) {
    const run = after.slice(i, i + HOLD_S);
    if (run.length === HOLD_S && run.every(ok)) return { recoveredS: r1(at(after[i]) - spike.startS), failed };
    failed += failedIn(after[i], expect);
  }
  return { recoveredS: null, failed };
}

// Every spike of the plan and when it was absorbed (any run of a plan with spikes, its
// replicas fixed or not): [{ startS, endS, fromRate, toRate, recoveredS, failed }].
function spikeResults({ secs, phases, expect, sloMs, t0, endMs }) {
  const loadS = (endMs - t0) / 1000;
  return spikesOf(phases).map((sp, i, all) => {
    const endS = all[i + 1]?.startS ?? loadS;
    return { ...sp, ...recoveryOf(sp, secs, t0, { sloMs, expect, endS }), untilS: endS };
  });
}

function autoscaleResults(e, elastic, { secs, phases, expect, sloMs, endMs }) {
  const lives = lifetimes(elastic, endMs);
  const t0 = elastic.t0;
  const timeline = timelineOf(lives, t0, endMs);
  const loadS = (endMs - t0) / 1000;
  const countAt = (s) => timeline[Math.min(timeline.length - 1, Math.max(0, Math.floor(s)))]?.replicas ?? null;
  const spikes = spikeResults({ secs, phases, expect, sloMs, t0, endMs }).map(({ untilS, ...sp }) => {
    const most = Math.max(...timeline.filter((x) => x.t >= sp.startS && x.t < untilS).map((x) => x.replicas), 0);
    return { ...sp, replicasBefore: countAt(sp.startS - 1), replicasMost: most };
  });
  return {
    min: e.min,
    max: e.max,
    metric: e.metric,
    target: e.target,
    unit: e.unit,
    rule: e.rule,
    sloMs,
    decisions: elastic.decisions.map(({ at: _at, ...d }) => d),
    changes: elastic.changes.length,
    replicaSeconds: replicaSecondsOf(lives, t0, endMs),
    fixed: { min: r1(e.min * loadS), max: r1(e.max * loadS) },
    timeline,
    spikes,
    errors: elastic.errors,
  };
}

// The rollout's failed requests by cause, over its window (its start to 2 s after its end):
//   dropped:  5xx the entry gave naming a replica being stopped, from its SIGTERM to a second
//             after it exited (its requests in flight died with it);
//   gateway:  the entry's other 502/504 (no replica to send to);
//   refused / reset / other: requests with no answer (ECONNREFUSED, ECONNRESET, ...).
function rolloutResults(elastic, { secs, expect, names }) {
  const r = elastic.rollout;
  if (!r) return null;
  const t0 = elastic.t0;
  const from = r.startedAt;
  const to = (r.endedAt ?? from) + 2000;
  const removed = elastic.changes.filter((c) => c.removed).map((c) => c.removed);
  const causes = { dropped: {}, gateway: 0, refused: 0, reset: 0, other: {} };
  let failed = 0;
  for (const s of secs.filter((x) => x.at + 1000 > from && x.at < to)) {
    // (Keyed by what the entry named: "A, B" when it tried A, then B; the replica stopping
    // may be any of them, and is counted once.)
    for (const [named, n] of Object.entries(s.upstreamFails || {})) {
      const stopping = removed.find(
        (x) =>
          s.at + 1000 > x.sigtermAt &&
          s.at < x.exitedAt + 1000 &&
          triedBy(named).some(
            (addr) => x.name === (names[addr] ?? addr) || x.address === addr || (x.port && addr.endsWith(`:${x.port}`)),
          ),
      );
      if (stopping) causes.dropped[stopping.name] = (causes.dropped[stopping.name] || 0) + n;
    }
    const answered = failedAnswers(s.codes, expect);
    failed += answered.count;
    causes.gateway += (answered.codes['502'] || 0) + (answered.codes['504'] || 0);
    for (const [code, n] of Object.entries(s.errors || {})) {
      failed += n;
      if (code === 'ECONNREFUSED') causes.refused += n;
      else if (code === 'ECONNRESET' || code === 'EPIPE') causes.reset += n;
      else causes.other[code] = (causes.other[code] || 0) + n;
    }
  }
  const droppedAll = Object.values(causes.dropped).reduce((a, n) => a + n, 0);
  // (The entry's 502s naming a stopping replica are counted as dropped, not twice.)
  causes.gateway = Math.max(0, causes.gateway - droppedAll);
  return {
    atS: r1((from - t0) / 1000),
    seconds: r1(((r.endedAt ?? from) - from) / 1000),
    surge: r.surge,
    unavailable: r.unavailable,
    replaced: (r.replaced || []).map((x) => {
      const gone = removed.find((y) => y.name === x.old);
      return {
        ...x,
        ...(gone
          ? {
              drainedS: r1((gone.drainedAt - gone.leftAt) / 1000),
              connectionsLeft: gone.connectionsLeft,
              exit: gone.killed
                ? 'killed at the grace'
                : gone.exitCode === 0
                  ? 'exited cleanly'
                  : `exited ${gone.exitCode}`,
              stopS: r1((gone.exitedAt - gone.sigtermAt) / 1000),
            }
          : {}),
      };
    }),
    failed,
    causes,
    ...(r.error ? { error: r.error } : {}),
    ...(r.underWay ? { error: underWay(r, elastic) } : {}),
  };
}

// A rollout the run ended in the middle of (a Ctrl-C): how far it got, from its changes.
function underWay(r, elastic) {
  const since = elastic.changes.filter((c) => c.at >= r.startedAt);
  const removed = since.filter((c) => c.removed).length;
  const added = since.filter((c) => c.added).length;
  return `the run ended during the rollout, ${Math.round((Date.now() - r.startedAt) / 100) / 10} s in: ${removed} of ${r.replicas} replica(s) replaced, ${added} new one(s) started`;
}

// The findings of the changes, by stated rules, in words.
function elasticFindings(summary) {
  const out = [];
  const a = summary.autoscale;
  if (a) {
    for (const sp of a.spikes) {
      const replicas =
        sp.replicasBefore !== null && sp.replicasMost !== sp.replicasBefore
          ? ` (${sp.replicasBefore} → ${sp.replicasMost} replicas)`
          : ` (${sp.replicasMost} replica(s) throughout)`;
      out.push({
        id: sp.recoveredS === null ? 'spike-not-absorbed' : 'spike-absorbed',
        rule: `a spike is a phase at twice the rate before it or more; it is absorbed from the first second after which p99 stayed under the SLO (${a.sloMs} ms) with no failed request for ${HOLD_S} s`,
        text:
          sp.recoveredS === null
            ? `the spike at ${sp.startS} s was not absorbed before the next phase change (p99 under ${a.sloMs} ms with no failure for ${HOLD_S} s never came)${replicas}; ${sp.failed} requests failed meanwhile`
            : sp.recoveredS === 0
              ? `the spike at ${sp.startS} s was absorbed at once${replicas}`
              : `the spike at ${sp.startS} s was absorbed after ${sp.recoveredS} s${replicas}; ${sp.failed} requests failed meanwhile`,
      });
    }
    out.push({
      id: 'autoscale-cost',
      rule: "replica-seconds: each replica's time from its start to its exit, over the load, summed; a fixed count's is the count times the load's length",
      text: `the autoscaled replicas used ${a.replicaSeconds} replica-seconds, against ${a.fixed.min} held at ${a.min} and ${a.fixed.max} held at ${a.max}`,
    });
  }
  const r = summary.rollout;
  if (r) {
    const dropped = Object.entries(r.causes?.dropped || {});
    const rule =
      "a rollout's failed requests are those of its window (its start to 2 s after its end); a 5xx the entry named a replica for, from that replica's SIGTERM to a second after its exit, was dropped by it";
    if (r.error) out.push({ id: 'rollout-failed', rule, text: `the rollout did not finish: ${r.error}` });
    // (A rollout that did not finish is never called clean: not every replica was replaced.)
    if (!r.failed && !r.error) {
      out.push({
        id: 'rollout-clean',
        rule,
        text: `the rollout dropped nothing (${r.replaced.length} replica(s) replaced in ${r.seconds} s)`,
      });
    } else if (r.failed) {
      const why = [];
      if (dropped.length)
        why.push(
          `${dropped.map(([n, c]) => `${n} (${c})`).join(', ')} exited with requests in flight; handle SIGTERM by closing the server and waiting for them`,
        );
      if (r.causes.gateway) why.push(`${r.causes.gateway} answered 502/504 by the entry with no replica to send to`);
      if (r.causes.refused) why.push(`${r.causes.refused} refused connections`);
      if (r.causes.reset) why.push(`${r.causes.reset} reset connections`);
      out.push({
        id: 'rollout-dropped',
        rule,
        text: `the rollout dropped ${r.failed} request(s): ${why.join('; ') || 'see the errors'}`,
      });
    }
  }
  return out;
}

module.exports = {
  autoscaleResults,
  spikeResults,
  rolloutResults,
  elasticFindings,
  spikesOf,
  recoveryOf,
  lifetimes,
  timelineOf,
  replicaSecondsOf,
  HOLD_S,
};
