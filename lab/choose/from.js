'use strict';

// choose --from (npm run choose): the sweeps of an earlier choice, or of a capacity --replicas
// search, read instead of measured, and refused when they measured something else (another
// service, or this one changed: the fingerprint), with other settings, or not to their end;
// and the search's own flags, which --from would not use, refused beside it.

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');
const { maybeJson } = require('../results/files');
const { fingerprintOf, fingerprintDiffers } = require('../capacity/fingerprint');

// The search's own flags, which --from would not use (nothing is searched again): refused.
// (--warmup and --search-hold stay: the check and the knee's level run with them.)
const SEARCH_ONLY = [
  'start',
  'min-rate',
  'max-rate',
  'precision',
  'repetitions',
  'verify-hold',
  'recovery-wait',
  'fresh-per-level',
  'max-levels',
  'time-limit',
];
function checkFrom(values, given) {
  if (!fs.existsSync(values.from))
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'no such folder: give the folder of an earlier choose or of a capacity --replicas search',
    );
  if (!fs.statSync(values.from).isDirectory())
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'not a folder: give the folder of an earlier choose or of a capacity --replicas search',
    );
  const unused = SEARCH_ONLY.find((f) => given.has(f));
  if (unused)
    throw labError(
      'LAB_ERR_FLAGS_EXCLUDE',
      'from',
      unused,
      `--from reads sweeps already measured, and --${unused} would change only a search: give one of them`,
    );
}

// An earlier choice's sweep, read for --from: refused when it measured something else.
function fromSweep(p, s) {
  const dir = s.dir ?? path.join(p.from, 'sweeps', s.id);
  const result = maybeJson(path.join(dir, 'capacity.json'));
  const search = maybeJson(path.join(dir, 'search.json'));
  // A unit the earlier choice screened and did not sweep (its bound was no cheaper than what
  // it chose, ./screen.js): no candidate here either, and why.
  const unswept = !result && !s.dir ? unsweptThere(p.from, s.id) : null;
  if (unswept) return { unswept };
  if (!result || !search?.settings)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `it holds no sweep of ${s.id} (sweeps/${s.id}/capacity.json): give the folder of an earlier choose with the same --shapes and --balancers`,
    );
  const was = search.settings;
  const now = s.plan;
  const differs = [
    ['the SLO', was.slos, now.slos.map((t) => t.text)],
    ['the caps', was.caps, now.values.cap],
    // (An earlier choice's sweeps measured their own counts: compared when --replicas asks.)
    ...(s.dir || p.values.replicas ? [['the counts (--replicas)', was.replicas, now.sweep]] : []),
    ['the workers', was.workers, now.values.workers ?? null],
    ['the requests', was.words, now.words],
  ].filter(([, a, b]) => JSON.stringify(a) !== JSON.stringify(b));
  if (differs.length)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep was measured with other settings (${differs.map(([n]) => n).join(', ')}): a choice reads only sweeps of its own settings`,
    );
  // What was measured: another service (or this one changed) is never read as this one.
  const other = fingerprintDiffers(was.fingerprint, fingerprintOf(now));
  if (other.length)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep measured something else: ${other.join(', ')} differ${other.length > 1 ? '' : 's'} (${describeFingerprint(was.fingerprint)}): a choice reads only sweeps of the service it chooses for; measure it (leave out --from)`,
    );
  if (result.status !== 'completed')
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      p.from,
      `its ${s.id} sweep is ${result.status}, not completed: run that choose again with --run-dir to finish it`,
    );
  return result;
}

// Why an earlier choice left a unit unswept (its choice.json: the unit screened, its
// candidate refused), or null when it did not screen that unit.
function unsweptThere(from, id) {
  const was = maybeJson(path.join(from, 'choice.json'));
  const screened = was?.screens?.find((x) => x.id === id);
  if (!screened) return null;
  const c = (was.candidates || []).find((x) => x.refused && x.sweepId === id);
  return `the choice in ${from} screened it and did not sweep it: ${c?.refused ?? screened.bound?.refused ?? screened.bound?.text ?? 'its screen'}`;
}

// A sweep's fingerprint in a few words (the service and its start line).
const describeFingerprint = (f) =>
  f
    ? `it measured ${f.service}${f.start ? ` (${f.start})` : ''}${f.with ? ` with ${f.with}` : ''}`
    : 'it kept no fingerprint';

// A `capacity --replicas` search folder given to --from (its search.json names a sweep), or
// null: then it is an earlier choice's folder. Its shape and counts are the choice's; flags
// that would name others are refused.
function capacitySweepAt(values, shapes) {
  const was = maybeJson(path.join(values.from, 'search.json'))?.settings;
  if (!was) return null;
  if (!was.replicas)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      'its search is not a sweep of replica counts (capacity --replicas)',
    );
  for (const f of ['shapes', 'balancers', 'replicas', 'workers', 'sizes']) {
    if (values[f] !== undefined)
      throw labError(
        'LAB_ERR_FLAGS_EXCLUDE',
        'from',
        f,
        `the sweep of ${values.from} says its own (${f === 'replicas' ? was.replicas.join(',') : f})`,
      );
  }
  const shape = was.deployments?.[0];
  if (!shapes.includes(shape))
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'from',
      values.from,
      `its sweep is of ${shape}, not one of the shapes a choice compares (${shapes.join(', ')})`,
    );
  return { shape, balancer: was.balancer ?? 'nginx', counts: was.replicas, workers: was.workers };
}

module.exports = { checkFrom, fromSweep, capacitySweepAt, SEARCH_ONLY };
