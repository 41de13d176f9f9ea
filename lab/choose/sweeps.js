'use strict';

// A choice's sweeps (lab/commands/choose/): each shape's capacity measured at its counts, one
// child capacity run a sweep, given its job (./dimensions.js startSweep), or read from an
// earlier choice (--from); what choice.json keeps of each, a sweep cut short included.

const path = require('node:path');
const { reasonOf } = require('../run/child');
const { maybeJson } = require('../results/files');
const { interrupted } = require('../ownership/cleanups');
const { countsText } = require('./plan-text');
const { startSweep } = require('./dimensions');

// What choice.json keeps of a sweep stopped before its end: the counts it measured (each
// deployment searched so far, with what it held), its status. A count whose search was cut
// short keeps the highest rate one of its levels held, as "held at least" (heldAtLeast).
function sweepRecord(s, sdir, result) {
  const points = (result?.deployments || [])
    .filter((d) => d.replicas != null)
    .map((d) => ({ replicas: d.replicas, maxRate: d.maxRate ?? null, ...(d.bound ? { bound: d.bound } : {}) }));
  for (const l of result?.levels || []) {
    if (l.replicas == null || !l.ok || points.some((p) => p.replicas === l.replicas && p.maxRate !== null)) continue;
    const p = points.find((x) => x.replicas === l.replicas);
    if (p) p.heldAtLeast = Math.max(p.heldAtLeast ?? 0, l.rate);
    else points.push({ replicas: l.replicas, maxRate: null, heldAtLeast: l.rate, cut: true });
  }
  return { id: s.id, dir: sdir, status: result?.status ?? 'not started', points };
}

// One sweep's points from its capacity.json: the counts measured, what each held, the
// replicas' memory; its sentence when the search found the service changing under it.
function sweepOf(s, result) {
  const points = (result.scaling?.points || []).map((pt) => {
    const v = (result.deployments || []).find((d) => d.replicas === pt.replicas) || {};
    return { ...pt, memoryMiB: v.replicaMemoryMiB ?? null };
  });
  return { ...s, node: s.node?.version ?? null, points, notRanked: result.notRanked ?? null };
}

// The sweeps measured in order, into the choice's folder `dir`: -> each sweep's points (for
// the ranking, ./candidates.js). out.sweeps gets each sweep's record, written (write()) as it
// ends; track({ child, s, sdir }) is told the sweep under way (null after), so that an
// interrupt keeps what it measured. A sweep that failed gives its shape no candidate, and why.
async function measureSweeps(p, dir, { out, write, log, track }) {
  const sweeps = [];
  for (const s of p.sweeps) {
    let result;
    if (p.from) result = s.fromResult;
    else {
      const sdir = path.join(dir, 'sweeps', s.id);
      log(`measure ${s.id}: capacity at ${countsText(p)} (its folder: ${sdir})`);
      const { child, done } = startSweep(s, sdir);
      track({ child, s, sdir });
      const r = await done;
      // (Ctrl-C: the cleanup above keeps this sweep's figures and ends the choice: no verdict.)
      if (interrupted()) await new Promise(() => {});
      track(null);
      result = maybeJson(path.join(sdir, 'capacity.json'));
      // A sweep cut short (a failure) gives its shape no candidate, with why: its figures
      // were not all measured. (An interrupt stops the choice itself.)
      if (result?.status !== 'completed') {
        const why = `its capacity sweep ${result ? `was ${result.status}` : 'wrote nothing'}: ${reasonOf(r.tail, r.code)}`;
        log(`measure ${s.id}: ${why}`);
        out.sweeps.push({ ...sweepRecord(s, sdir, result), failed: why });
        sweeps.push({ ...s, node: s.node?.version ?? null, points: [], failed: why });
        write();
        continue;
      }
    }
    const sw = sweepOf(s, result);
    sweeps.push(sw);
    out.sweeps.push({
      id: s.id,
      dir: s.dir ?? (p.from ? path.join(p.from, 'sweeps', s.id) : path.join(dir, 'sweeps', s.id)),
      points: sw.points,
      ...(sw.notRanked ? { notRanked: sw.notRanked } : {}),
    });
    write();
  }
  return sweeps;
}

module.exports = { sweepRecord, sweepOf, measureSweeps };
