'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { fingerprintOf } = require('./fingerprint');
const { claimDir, kept } = require('../ownership/dirs');
const { runDirOf, pathSlug } = require('../results/run-dir');
const { labError } = require('../../common/errors');
const { NO_ANSWER } = require('../results/exit-code');
const { judgeLevel } = require('./level');
const { maybeJson } = require('../results/files');

// A capacity search's folder (--run-dir): its settings, what it wrote, and its levels read
// back. The lab deletes only what the search wrote: search.json lists it.

// A level measured by an earlier run of this search, read back from its folder when it is
// whole (its summary says completed); a level cut short is removed, to be measured again.
function measuredBefore(o) {
  const file = path.join(o.dir, 'summary.json');
  if (!fs.existsSync(o.dir)) return null;
  let summary = null;
  try {
    summary = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    // cut short before its summary
  }
  // (A level nothing answered is whole too: it measured a deployment that answered nothing.)
  const whole = summary?.status === 'completed' || String(summary?.status).startsWith(NO_ANSWER);
  if (whole && fs.existsSync(path.join(o.dir, 'records.jsonl'))) {
    return { ...judgeLevel(summary, o), resumed: true };
  }
  fs.rmSync(o.dir, { recursive: true, force: true });
  return null;
}

// What makes two searches the same search: a folder holding another is not resumed.
function settingsOf(p) {
  return {
    words: p.words,
    extra: p.extra,
    slos: p.slos.map((t) => t.text),
    deployments: p.deployments,
    app: p.app ? p.app.dir : null,
    with: p.values.with ?? null,
    appCmd: p.values['app-cmd'] ?? null,
    balancer: p.values.balancer ?? null,
    start: p.start,
    maxRate: p.maxRate,
    precision: p.precision,
    repetitions: p.repetitions,
    warmupS: p.warmupS,
    hold: p.values.hold ?? null,
    verifyHold: p.values['verify-hold'] ?? null,
    maxLevels: p.maxLevels ?? null,
    caps: p.values.cap ?? [],
    replicas: p.sweep,
    replicasFor: p.countsFor ?? null,
    // (Only when given: a folder an earlier lab wrote, without it, still resumes.)
    ...(p.stopBelow != null ? { stopBelow: p.stopBelow } : {}),
    ...(p.recheck ? { recheck: true } : {}),
    workers: p.values.workers ?? null,
    predict: p.values.predict ?? null,
    floor: p.floor,
    recoveryWaitS: p.recoveryWaitS,
    freshPerLevel: p.fresh,
    tls: p.tls ? (p.tls.http2 ? 'http2' : 'tls') : null,
    // (What was measured: choose --from compares it, and a changed service is a new search.)
    fingerprint: fingerprintOf(p),
  };
}

// The search's folder: a new one, or --run-dir. A --run-dir that holds a search is resumed
// when its settings are these, refused when they are not (it once deleted the earlier search
// without a word), and started over with --restart, which deletes only what the search wrote
// (search.json lists it: a user's notes beside it stay). A folder of the lab's that holds
// something else (a scenario run) is refused: it was once reset, its run deleted.
const SEARCH_FILE = 'search.json';
function openSearchDir(p, log) {
  const dir = runDirOf(p.values, `capacity-${pathSlug(p.word)}`);
  const fresh = { settings: settingsOf(p), written: [SEARCH_FILE] };
  if (!p.values['run-dir']) {
    claimDir(dir, 'the run folder');
  } else {
    claimDir(dir, '--run-dir');
    const before = maybeJson(path.join(dir, SEARCH_FILE));
    if (!before) {
      const held = fs.readdirSync(dir).filter((n) => !kept(n));
      if (held.length) throw labError('LAB_ERR_NOT_A_SEARCH', dir, whatFolder(dir, held));
    } else if (!p.values.restart) {
      const now = settingsOf(p);
      const differ = Object.keys(now).filter((k) => JSON.stringify(now[k]) !== JSON.stringify(before.settings?.[k]));
      if (differ.length) {
        throw labError(
          'LAB_ERR_DIR_SETTINGS',
          `--run-dir ${dir}`,
          `holds a capacity search with other settings (${differ.join(', ')})`,
          'add --restart to delete it and start over, or give another --run-dir',
        );
      }
      log(`resuming the search in ${dir}: the levels it measured are read back, the rest measured`);
      writeSearch(dir, { ...fresh, written: [...new Set([...(before.written || writtenBy(before)), SEARCH_FILE])] });
      return dir;
    } else {
      const gone = removeWritten(dir, before.written || writtenBy(before));
      log(`--restart: deleted the earlier search's ${gone.length} file(s) and folder(s) in ${dir}`);
    }
  }
  writeSearch(dir, fresh);
  return dir;
}

const writeSearch = (dir, data) => fs.writeFileSync(path.join(dir, SEARCH_FILE), `${JSON.stringify(data, null, 2)}\n`);

// Notes a top-level entry of the search's folder as the search's own, before it is written.
function noteWritten(dir, name) {
  const data = maybeJson(path.join(dir, SEARCH_FILE));
  if (!data || data.written?.includes(name)) return;
  writeSearch(dir, { ...data, written: [...(data.written || []), name] });
}

// What a search of these settings writes, for a search.json from before the list was kept.
function writtenBy(search) {
  const s = search.settings || {};
  const counts = s.replicas ? [...s.replicas, ...(s.predict ? [s.predict] : [])] : [null];
  const folders = (s.deployments || []).flatMap((d) => counts.map((n) => (n ? `${d}-x${n}` : d)));
  return [SEARCH_FILE, 'capacity.json', 'capacity.html', 'prediction.json', ...folders];
}

// Deletes the entries listed (names in the folder, never a path out of it); returns them.
function removeWritten(dir, names) {
  const gone = [];
  for (const name of names) {
    if (typeof name !== 'string' || !name || name.includes('/') || name.startsWith('.')) continue;
    const p = path.join(dir, name);
    if (!fs.existsSync(p)) continue;
    fs.rmSync(p, { recursive: true, force: true });
    gone.push(name);
  }
  return gone;
}

// What a folder that is not a search holds, in words.
function whatFolder(dir, held) {
  if (held.includes('summary.json')) {
    const s = maybeJson(path.join(dir, 'summary.json'));
    return `a run of ${s?.endpoint ?? '?'} ${s?.scenario ?? ''}${s?.startedAt ? ` from ${s.startedAt}` : ''} (its summary.json, report and records)`;
  }
  if (held.includes('study.json') || held.includes('runs')) return 'a study';
  return `${held.length} file(s) and folder(s) (${held.slice(0, 4).join(', ')}${held.length > 4 ? ', ...' : ''})`;
}

module.exports = { openSearchDir, noteWritten, measuredBefore, settingsOf, SEARCH_FILE };
