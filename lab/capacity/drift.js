'use strict';

const { clock } = require('../terminal/progress');
const { atRest, atRestText, RULE: AT_REST_RULE } = require('./at-rest');

// Whether the service changed under its own search: a service whose data grows under load
// (every write read back later) answers slower after each level, and a search that goes on
// measures a different system at every step. Its capacity then depends on its state, and no
// rate the search finds is that of the system it started as. (A real service, its own
// PostgreSQL, held 50/s twice in 20 s levels, then broke 40 s verifications at 50, 47.5, 45.1,
// 40.6 and 32.5/s and "verified" 19.5/s at the 6th try, while a 5/s probe's median grew from
// 4.9 to 12.6 ms, under the recovery rule's limit.)
// The evidence is the service at rest: a light probe (./recovery.js) once it has recovered,
// against the baseline (the probe after the warm-up, before any level), by the figures and
// bands the recovery reads too (./at-rest.js): its fastest answer (a service whose every
// request does more work is slower even at its fastest, while a busy machine delays some
// answers and rarely all of them), its median on enough answers, its errors; with the wider
// band when other programs kept half this machine busy or took a quarter of it more than at the
// baseline (./machine.js: the service may only be waiting for a core), where a median slower
// alone is not drift. (On a machine running four CPU hogs beside six test files, /ping through
// TLS answered at rest 5.5 ms at its fastest before a search and 18.7 ms after it, 3.4 times
// and 13 ms slower: unchanged.)
//   1. settled: once the search has bracketed the knee and the service has recovered, three
//      probes in a row (and more, until they span 10 s) slower at rest, and steadily so
//      (./recovery.js steadyFastest): the service changed;
//   2. again: a rate the search held twice (the level and its measure again before bisecting),
//      broken by the longer verification, then measured again as the search measured it (its
//      short hold) and broken again, twice, while the service at rest is slower too (rule 1's
//      measure on the last probe): the rate held at first no longer holds at all. When it
//      holds again, the service did not change: its knee moves with how long the load lasts (a
//      longer hold finds it lower), which is said, and the verification steps down. A rate the
//      search held once only, at the knee's noisy edge, or broken again while the service at
//      rest answers as before, is no evidence: the verification steps down without a word of
//      drift. (/ping behind nginx on a busy machine once held 2,800/s once, then broke three
//      runs: it was called drift while every probe at rest answered as before the search.)
// The search's own check before bisecting (the level that held, broken twice after the
// overload: ./search.js) asks the same of the service at rest.
// Rule 3 (costDrift): a request of the same rate costlier in CPU by this much, and the extra
// CPU at that rate at least this share of a core: less could not have held the deployment back.
// (A service paced by timers, a fraction of a ms of CPU a request, was called drifting on a
// machine busy with other test files, in a verification whose line grew: at 20/s a request
// costlier by even 0.25 ms is half a percent of a core, the backlog's bookkeeping, not a
// changed service.)
const COSTLIER = 1.5;
const COSTLIER_BY_MS = 0.2;
const COSTLIER_CORES = 0.05;
const RULE = `the service changed under the search (its drift) when, after it recovered, probes at rest answered slower than before the search, steadily (${AT_REST_RULE}), or when four probes at rest in a row each answered slower than the one before (a trend), or when the rate the search held cost ${COSTLIER}x and ${COSTLIER_BY_MS} ms more CPU a request in the verification, ${Math.round(COSTLIER_CORES * 100)}% of a core more at that rate; and, with that, when the rate it held broke in the longer verification and again, twice, as the search measured it, or the last level that held broke twice after an overload`;

const fastest = (l) => l?.latencyMs?.min ?? null;

// Rule 1: a probe at rest against the baseline. -> { from, to, rate, text } or null. (The
// session asks for more while they are in the band, until three in a row, over 10 s, are steady.)
function settledDrift(baseline, probe) {
  if (!baseline || !probe) return null;
  const a = atRest(baseline, probe);
  if (!a.drift.length) return null;
  const what = atRestText(a, baseline, probe);
  return {
    rule: 'settled',
    from: fastest(baseline),
    to: fastest(probe),
    by: a.drift,
    rate: probe.rate,
    atS: probe.atS ?? null,
    text: `a ${probe.rate}/s probe at rest answered slower than before the search (${what}${at(probe)})`,
  };
}

// Rule 1, by its trend: probes at rest each slower than the one before (./recovery.js
// risingFastest), however far from the baseline. -> { rule: 'trend', from, to, text }.
function trendDrift(baseline, probes) {
  const first = probes[0];
  const last = probes.at(-1);
  const series = probes.map((l) => fastest(l)).join(', ');
  return {
    rule: 'trend',
    from: fastest(first),
    to: fastest(last),
    rate: last.rate,
    atS: last.atS ?? null,
    text: `${probes.length} ${last.rate}/s probes at rest each answered slower than the one before (their fastest answers: ${series} ms; ${fastest(baseline) ?? '-'} ms before the search${at(last)})`,
  };
}

// Rule 3, by what a request costs: the rate the search held, run again by the verification,
// cost clearly more CPU a request (the deployment's processes', per request sent, so that
// answers lost to an overload do not inflate it): each request does more work than it did,
// the service changed. Never "this machine was the limit": a busy machine does not make a
// request cost more CPU. (A service whose data grew filled the cores at a rate it had held
// with fewer busy, and was said to be limited by the machine: issue 84.)
const perSent = (l) => {
  const ms = l?.cost?.cpuMsPerRequest;
  if (!Number.isFinite(ms) || !(l.requests > 0) || !(l.answered > 0)) return null;
  return (ms * l.answered) / l.requests;
};
function costDrift(held, run) {
  const before = perSent(held);
  const now = perSent(run);
  if (before === null || now === null || now < COSTLIER * before || now < before + COSTLIER_BY_MS) return null;
  if (((now - before) * held.rate) / 1000 < COSTLIER_CORES) return null;
  const r = (v) => Math.round(v * 1000) / 1000;
  return {
    rule: 'cost',
    rate: held.rate,
    from: r(before),
    to: r(now),
    text: `${held.rate}/s cost ${r(before)} ms of CPU a request in the search${at(held)} and ${r(now)} ms in the verification${at(run)}`,
  };
}

// Rule 2: the verification's first run broke at `held.rate`, a rate the search held `heldTimes`
// times, then the same rate at the search's hold broke `again` (two levels), and the service at
// rest is slower (`atRest`: rule 1 on its last probe). -> { text, ... } or null.
function againDrift(held, verificationRun, again, heldTimes = 2, atRest = null) {
  if (heldTimes < 2 || again.length < 2 || again.some((l) => l.ok) || !atRest) return null;
  return {
    rule: 'again',
    rate: held.rate,
    heldAtS: held.atS ?? null,
    brokeAtS: verificationRun.atS ?? null,
    text: `${held.rate}/s held for ${held.holdS} s${at(held)} but not for ${verificationRun.holdS} s${at(verificationRun)}, nor again for ${again[0].holdS} s${at(again.at(-1))}, and ${atRest.text}`,
  };
}

// "at 2:10 after the deployment came up", when the level knows it.
const at = (l) => (Number.isFinite(l?.atS) && l.atS >= 0 ? ` at ${clock(l.atS)}` : '');

// The sentence said wherever drift is found (terminal, capacity.json, the page, the study).
function driftText(drift) {
  const how = {
    settled: 'it slowed as the search loaded it',
    trend: 'it keeps slowing at rest',
    cost: 'each request does more work than it did',
  };
  return `${drift.text}: the service changed under its search (drift: ${how[drift.rule] ?? 'what held at first no longer holds'}), so its capacity depends on its state and no rate measured now is it. Measure it with --fresh-per-level (each level on a fresh deployment, a fresh database with --with), or reset its data with --app-setup`;
}

module.exports = { settledDrift, trendDrift, costDrift, againDrift, driftText, COSTLIER, RULE };
