'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Whisper files are allocated whole when a metric first arrives (1 s for 6 h plus 10 s for
// 7 days: about 1 MiB a metric), so one short run left ~92 MB in .lab/graphite. Before each
// run the lab keeps the newest `keepRuns` runs and, of those, only as many as fit in
// `maxBytes`, deleting whole runs, oldest first. Only the lab's own naming is touched:
// <whisper>/<counters|gauges|timers|...>/lab/<run>/.
const DEFAULTS = { keepRuns: 20, maxBytes: 1024 ** 3 };

function sizeOf(p) {
  const st = fs.lstatSync(p);
  if (!st.isDirectory()) return st.size;
  return fs.readdirSync(p).reduce((a, n) => a + sizeOf(path.join(p, n)), 0);
}

function listRuns(whisperDir) {
  const runs = new Map();
  let tops;
  try {
    tops = fs.readdirSync(whisperDir);
  } catch {
    return runs;
  }
  for (const top of ['.', ...tops]) {
    const labDir = path.join(whisperDir, top, 'lab');
    let names;
    try {
      names = fs.readdirSync(labDir);
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = path.join(labDir, name);
      const st = fs.lstatSync(dir);
      if (!st.isDirectory()) continue;
      const run = runs.get(name) || { name, dirs: [], mtimeMs: 0, bytes: 0 };
      run.dirs.push(dir);
      run.mtimeMs = Math.max(run.mtimeMs, st.mtimeMs);
      run.bytes += sizeOf(dir);
      runs.set(name, run);
    }
  }
  return runs;
}

// Returns { removed: [run names], keptBytes }.
function pruneGraphite(whisperDir, options = {}) {
  const { keepRuns, maxBytes } = { ...DEFAULTS, ...options };
  const runs = [...listRuns(whisperDir).values()].sort((a, b) => b.mtimeMs - a.mtimeMs);
  const removed = [];
  let kept = 0;
  for (const [i, run] of runs.entries()) {
    if (i < keepRuns && (i === 0 || kept + run.bytes <= maxBytes)) {
      kept += run.bytes;
      continue;
    }
    for (const dir of run.dirs) fs.rmSync(dir, { recursive: true, force: true });
    removed.push(run.name);
  }
  return { removed, keptBytes: kept };
}

module.exports = { pruneGraphite, DEFAULTS };
