'use strict';

const { labError } = require('../common/errors');

// Edit distance, for "did you mean": small inputs only (names typed on a command line).
function distance(a, b) {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
  }
  return d[a.length][b.length];
}

function suggest(value, valid) {
  let best = null;
  let bestD = Infinity;
  for (const v of valid) {
    const dist = distance(String(value).toLowerCase(), v);
    if (dist < bestD) [best, bestD] = [v, dist];
  }
  // Only a near miss is worth suggesting.
  return bestD <= Math.max(2, Math.floor(String(value).length / 3)) ? best : null;
}

// Looks `value` up among `valid` names (an array, or an object whose keys are the names);
// an unknown one throws LAB_ERR_UNKNOWN_NAME listing the valid ones and the nearest.
function pick(kind, value, valid) {
  const names = Array.isArray(valid) ? valid : Object.keys(valid);
  if (names.includes(value)) return Array.isArray(valid) ? value : valid[value];
  throw labError('LAB_ERR_UNKNOWN_NAME', kind, value, names, suggest(value, names));
}

// A comma-separated list of names from a table (--balancers nginx,haproxy), each picked as
// pick() does: an unknown (or empty) one is refused with its nearest.
const pickList = (kind, raw, valid) =>
  String(raw)
    .split(',')
    .map((v) => pick(kind, v.trim(), Array.isArray(valid) ? valid : Object.keys(valid)));

module.exports = { pick, pickList, suggest, distance };
