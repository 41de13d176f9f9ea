'use strict';

const fs = require('node:fs');
const { labError } = require('../../common/errors');

// Reading a run's files: each one that does not parse is named with what is wrong in it,
// once, rather than failing somewhere inside a summary or a drawing.

// Whether `file` is there at all, a link included: a link that loops or leads nowhere is
// there and unreadable, not missing (fs.existsSync said "missing" of a records.jsonl that
// linked to itself, and the report came out empty with exit 0).
function present(file) {
  try {
    fs.lstatSync(file);
    return true;
  } catch {
    return false;
  }
}

function readText(file) {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    const why = { ENOENT: 'no such file', ELOOP: 'a link that leads back to itself' }[err.code] ?? err.message;
    throw labError('LAB_ERR_RESULTS', file, why);
  }
}

function readJson(file) {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw labError('LAB_ERR_RESULTS', file, `not valid JSON (${err.message})`);
  }
}

// The same, or null when it is missing or not JSON (a run not made yet, or cut short).
function maybeJson(file) {
  try {
    return readJson(file);
  } catch {
    return null;
  }
}

// One JSON value a line; a file that is not there reads as no lines.
function readJsonLines(file) {
  if (!present(file)) return [];
  const lines = readText(file).split('\n');
  const out = [];
  lines.forEach((l, i) => {
    if (!l.trim()) return;
    try {
      out.push(JSON.parse(l));
    } catch {
      // The last line of a run cut short may be half written: that one is skipped.
      if (i >= lines.length - 2) return;
      throw labError('LAB_ERR_RESULTS', file, `line ${i + 1} is not valid JSON`);
    }
  });
  return out;
}

module.exports = { present, readJson, maybeJson, readJsonLines };
