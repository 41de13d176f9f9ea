'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { labError } = require('../../common/errors');

// A study's folder as a resume store: which of its runs are done, what each was made with, and
// whether a folder made before may be gone on with under these settings.

// Whether a run's results are complete: what each kind of lab command writes last.
function isDone(dir, step) {
  try {
    if (step.kind === 'characterize') return fs.existsSync(path.join(dir, 'result.json'));
    if (step.kind === 'capacity') return fs.existsSync(path.join(dir, 'capacity.json'));
    return JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')).status === 'completed';
  } catch {
    return false;
  }
}

// What a run was made with, written into its folder once its command ended: the study, the
// run's own command line (as planned, before a group's address is filled in) and the study's
// settings.
const RUN_RECORD = 'study-run.json';
function writeRunRecord(dir, record) {
  if (fs.existsSync(dir)) fs.writeFileSync(path.join(dir, RUN_RECORD), `${JSON.stringify(record, null, 2)}\n`);
}
function readRunRecord(dir) {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, RUN_RECORD), 'utf8'));
  } catch {
    return null;
  }
}

// Refuses a folder whose study or finished runs were made with other settings, saying which
// and the way out; accepts one whose study.json is lost or damaged when every finished run
// of the plan was made as this study would make it.
function checkSettings(settingsFile, settings, plan, runDir, studyDir) {
  const wayOut = 'give the same settings to go on with it, --fresh to start it over, or another --dir';
  let before = null;
  let unreadable = false;
  if (fs.existsSync(settingsFile)) {
    try {
      before = JSON.parse(fs.readFileSync(settingsFile, 'utf8'));
      if (!before || typeof before !== 'object') throw new Error('not an object');
    } catch {
      before = null;
      unreadable = true;
    }
  }
  if (before) {
    // (A setting a folder's older study.json does not have is its default: null.)
    const differs = Object.keys(settings).filter((k) => (before[k] ?? null) !== settings[k]);
    if (differs.length) {
      throw labError(
        'LAB_ERR_USAGE',
        `${studyDir} holds the ${before.study} study with ${differs.map((k) => `${k} ${before[k]}`).join(', ')}; ${wayOut}`,
      );
    }
  }
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  for (const step of plan) {
    const dir = runDir(step);
    if (!isDone(dir, step)) continue;
    const rec = readRunRecord(dir);
    if (!rec) {
      throw labError(
        'LAB_ERR_USAGE',
        `${dir} holds results without a record of what they were made with (${RUN_RECORD})${unreadable ? ' and study.json is unreadable' : ''}; ${wayOut}`,
      );
    }
    // (A run's values, what the user typed passed on as data, count as its words do; a record
    // of before values were kept has none.)
    if (rec.study !== settings.study || !same(rec.args, step.args) || !same(rec.values ?? {}, step.values ?? {})) {
      const differs = Object.keys(settings).filter((k) => rec.settings && (rec.settings[k] ?? null) !== settings[k]);
      throw labError(
        'LAB_ERR_USAGE',
        `${dir} was made by the ${rec.study} study with ${
          differs.length ? differs.map((k) => `${k} ${rec.settings[k]}`).join(', ') : `\`${rec.args.join(' ')}\``
        }; ${wayOut}`,
      );
    }
  }
}

module.exports = { isDone, writeRunRecord, readRunRecord, checkSettings, RUN_RECORD };
