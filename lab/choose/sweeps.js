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
    // (The lowest rate that broke above the one held: the top of the count's bracket.)
    return { ...pt, memoryMiB: v.replicaMemoryMiB ?? null, ...(v.broke?.rate != null ? { broke: v.broke.rate } : {}) };
  });
  return { ...s, node: s.node?.version ?? null, points, notRanked: result.notRanked ?? null };
}

// The sweeps measured in order, into the choice's folder `dir`: -> each sweep's points (for
// the ranking, ./candidates.js). out.sweeps gets each sweep's record, written (write()) as it
// ends; track({ child, s, sdir }) is told the sweep under way (null after), so that an
// interrupt keeps what it measured. A sweep that failed gives its shape no candidate, and why.
async function measureSweeps(p, dir, io) {
  const sweeps = [];
  for (const s of p.sweeps) sweeps.push(await measureOne(p, s, dir, io));
  return sweeps;
}

// One sweep (or a screen: o.screen), measured into dir/sweeps/<id> (dir/screens/<id>), or
// read (--from): -> { ...s, points, ... } or { ...s, points: [], failed }; its record into
// out.sweeps (out.screens).
async function measureOne(p, s, dir, { out, write, log, track }, o = {}) {
  const kind = o.screen ? 'screens' : 'sweeps';
  let result;
  if (p.from) {
    result = s.fromResult;
    if (result.unswept) return { ...s, node: s.node?.version ?? null, points: [], failed: result.unswept };
  } else {
    const sdir = path.join(dir, kind, s.id);
    log(
      o.screen
        ? `screen ${s.id}: capacity at 1 replica (its folder: ${sdir})`
        : `measure ${s.id}: capacity at ${s.counts ? `${s.counts.join(', ')} replicas` : countsText(p)} (its folder: ${sdir})`,
    );
    const { child, done } = startSweep(s, sdir);
    track({ child, s, sdir, kind });
    const r = await done;
    // (Ctrl-C: the cleanup above keeps this sweep's figures and ends the choice: no verdict.)
    if (interrupted()) await new Promise(() => {});
    track(null);
    result = maybeJson(path.join(sdir, 'capacity.json'));
    // A sweep cut short (a failure) gives its shape no candidate, with why: its figures
    // were not all measured. (An interrupt stops the choice itself.)
    if (result?.status !== 'completed') {
      const why = `its capacity ${o.screen ? 'screen' : 'sweep'} ${result ? `was ${result.status}` : 'wrote nothing'}: ${reasonOf(r.tail, r.code)}`;
      log(`${o.screen ? 'screen' : 'measure'} ${s.id}: ${why}`);
      out[kind].push({ ...sweepRecord(s, sdir, result), failed: why });
      write();
      return { ...s, node: s.node?.version ?? null, points: [], failed: why };
    }
  }
  const sw = sweepOf(s, result);
  // (A screen's highest rate that broke, its bound's top: ./screen.js.)
  if (o.screen) {
    const broke = (result.levels || []).filter((l) => l.replicas === 1 && l.ok === false).map((l) => l.rate);
    const pt = sw.points.find((x) => x.replicas === 1);
    if (pt && broke.length) pt.highestBroke = Math.max(...broke);
  }
  // (Its machine's CPUs ran apart: its figures can move by as much. A search run here said it
  // as it read them; one read back, --from, is said here.)
  if (result.cpuSpeedsText && p.from) log(`${o.screen ? 'screen' : 'measure'} ${s.id}: ${result.cpuSpeedsText}`);
  out[kind].push({
    id: s.id,
    dir: s.dir ?? (p.from ? path.join(p.from, 'sweeps', s.id) : path.join(dir, kind, s.id)),
    points: sw.points,
    ...(sw.notRanked ? { notRanked: sw.notRanked } : {}),
    ...(result.cpuSpeedsText ? { cpuSpeedsText: result.cpuSpeedsText } : {}),
  });
  write();
  return sw;
}

module.exports = { sweepRecord, sweepOf, measureSweeps, measureOne };
