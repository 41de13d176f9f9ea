'use strict';

// A choice at its defaults (no --replicas): every unit screened at one replica, then swept in
// the order of the bounds the screens give, until no unit left can be cheaper than the
// cheapest count measured to hold the rate (./screen.js says the rule). -> { sweeps (the units
// swept, each as ./sweeps.js measures it), unswept ([{ unit, refused }]: a unit not swept, and
// why) }. out.screens keeps each screen with its bound; out.sweeps each sweep.

const os = require('node:os');
const { measureOne } = require('./sweeps');
const { rankCandidates } = require('./candidates');
const { afterScreen } = require('./dimensions');
const { headroomRate } = require('./check');
const { screenPoint, orderByBound, worthSweeping, sweepCounts, prunedText } = require('./screen');

async function screenAndSweep(p, dir, io) {
  const { out, write, log } = io;
  out.screens = [];
  const o = {
    want: headroomRate(p),
    maxReplicas: p.maxReplicas,
    price: p.price,
    cores: os.cpus().length,
  };
  const screens = [];
  for (const s of p.sweeps) {
    const sw = await measureOne(p, s, dir, io, { screen: true });
    // (A screen that found the service changing bounds nothing: the unit is not ranked.)
    const failed = sw.failed ?? sw.notRanked ?? null;
    screens.push({ s, point: failed ? null : screenPoint(sw.points), ...(failed ? { failed } : {}) });
  }
  const order = orderByBound(screens, o);
  for (const u of order) {
    const rec = out.screens.find((x) => x.id === u.s.id);
    if (rec) rec.bound = u.bound.refused ? { refused: u.bound.refused } : boundRecord(u.bound);
    log(`screen ${u.s.id}: ${u.bound.refused ?? u.bound.text}`);
  }
  write();
  const sweeps = [];
  const unswept = [];
  const rankOpts = { rate: p.rate, headroom: p.headroom, maxReplicas: p.maxReplicas, price: p.price };
  for (const u of order) {
    if (u.bound.refused) {
      unswept.push({ unit: u, refused: `its screen: ${u.bound.refused}` });
      continue;
    }
    const best = rankCandidates(sweeps, rankOpts).choice;
    if (!worthSweeping(u, best, p.price)) {
      const refused = prunedText(u, best, p.price);
      log(`sweep ${u.s.id}: ${refused}`);
      unswept.push({ unit: u, refused });
      continue;
    }
    const { counts, start } = sweepCounts(u, o);
    log(`sweep ${u.s.id}: ${u.bound.text}: measured at ${counts.join(' and ')} replicas`);
    sweeps.push(await measureOne(p, afterScreen(p, u.s, counts, start, o.want), dir, io));
  }
  return { sweeps, unswept };
}

// What choice.json keeps of a bound.
const boundRecord = (b) => ({
  replicas: b.replicas,
  cores: b.cores,
  ...(b.cost ? { cost: b.cost } : {}),
  text: b.text,
});

// A unit not swept, as a sweep that gives no candidate, and why (its screen is in
// choice.json's screens, never among a sweep's points: a screen is not a sweep's measure).
const unsweptSweep = ({ unit, refused }) => ({
  ...unit.s,
  node: unit.s.node?.version ?? null,
  points: [],
  failed: refused,
});

module.exports = { screenAndSweep, unsweptSweep };
