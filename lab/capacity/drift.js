'use strict';

const { clock } = require('../terminal/progress');
const { othersRose } = require('./machine');

// Whether the service changed under its own search: a service whose data grows under load
// (every write read back later) answers slower after each level, and a search that goes on
// measures a different system at every step. Its capacity then depends on its state, and no
// rate the search finds is that of the system it started as. (A real service, its own
// PostgreSQL, held 50/s twice in 20 s levels, then broke 40 s verifications at 50, 47.5, 45.1,
// 40.6 and 32.5/s and "verified" 19.5/s at the 6th try, while a 5/s probe's median grew from
// 4.9 to 12.6 ms, under the recovery rule's limit.)
// Two rules, each judged on the same light probe (./recovery.js) or on a level of the search,
// and neither when other programs took a quarter of this machine more than at the measure it is
// compared with (./machine.js: the service may then answer slower only because it waits for a
// core):
//   1. settled: once the search has bracketed the knee and the service has recovered, two
//      probes in a row answered with a median at least SLOWER times and BY_MS more than the
//      baseline's (the probe after the warm-up, before any level), or with more errors: the
//      service answers slower at rest than it did before the load, so it changed;
//   2. again: a rate the search held twice (the level and its measure again before bisecting),
//      broken by the longer verification, then measured again as the search measured it (its
//      short hold) and broken again, twice: the rate held at first no longer holds at all.
//      When it holds again, the service did not change: its knee moves with how long the load
//      lasts (a longer hold finds it lower), which is said, and the verification steps down.
//      A rate the search held once only, at the knee's noisy edge, is no evidence either way:
//      the verification steps down without a word of drift. (/ping behind nginx on a machine
//      busy with other work once held 2,800/s once, then broke three runs: it was called drift
//      while every probe at rest answered as before the search.)
const SLOWER = 1.5;
const BY_MS = 5;
const RULE = `the service changed under the search (its drift) when, after it recovered, a probe's median was ${SLOWER}x the one before the search and ${BY_MS} ms more (or had more errors), or when the rate it held broke in the longer verification and again, twice, as the search measured it`;

const median = (l) => l?.latencyMs?.p50 ?? null;

// Rule 1: a probe at rest against the baseline. -> { from, to, rate, text } or null. (The
// second probe in a row: the session asks for it when the first was in the band.)
function settledDrift(baseline, probe) {
  if (!baseline || !probe) return null;
  if (othersRose(baseline, [probe])) return null;
  const before = median(baseline);
  const now = median(probe);
  const errors = (probe.errorsPct ?? 0) > (baseline.errorsPct ?? 0);
  const slower = before != null && now != null && now >= SLOWER * before && now >= before + BY_MS;
  if (!errors && !slower) return null;
  const what = slower
    ? `its median went from ${before} ms to ${now} ms`
    : `its errors went from ${baseline.errorsPct ?? 0}% to ${probe.errorsPct}%`;
  return {
    rule: 'settled',
    from: before,
    to: now,
    rate: probe.rate,
    atS: probe.atS ?? null,
    text: `a ${probe.rate}/s probe at rest answered slower than before the search (${what}${at(probe)})`,
  };
}

// Rule 2: the verification's first run broke at `held.rate`, a rate the search held `heldTimes`
// times, then the same rate at the search's hold broke `again` (two levels). -> { text, ... }
// or null.
function againDrift(held, verificationRun, again, heldTimes = 2) {
  if (heldTimes < 2 || again.length < 2 || again.some((l) => l.ok)) return null;
  if (othersRose(held, [verificationRun, ...again])) return null;
  return {
    rule: 'again',
    rate: held.rate,
    heldAtS: held.atS ?? null,
    brokeAtS: verificationRun.atS ?? null,
    text: `${held.rate}/s held for ${held.holdS} s${at(held)} but not for ${verificationRun.holdS} s${at(verificationRun)}, nor again for ${again[0].holdS} s${at(again.at(-1))}`,
  };
}

// "at 2:10 after the deployment came up", when the level knows it.
const at = (l) => (Number.isFinite(l?.atS) && l.atS >= 0 ? ` at ${clock(l.atS)}` : '');

// The sentence said wherever drift is found (terminal, capacity.json, the page, the study).
function driftText(drift) {
  return `${drift.text}: the service changed under its search (drift: ${drift.rule === 'settled' ? 'it slowed as the search loaded it' : 'what held at first no longer holds'}), so its capacity depends on its state and no rate measured now is it. Measure it with --fresh-per-level (each level on a fresh deployment, a fresh database with --with), or reset its data with --app-setup`;
}

module.exports = { settledDrift, againDrift, driftText, SLOWER, BY_MS, RULE };
