'use strict';

// A capture from a JSON answer, as Artillery's `capture: { json: '$.path', as: name }`: the
// JSONPath subset of a plain path: $, .key, ['key'], [index], and [*]... not: a path with
// filters or recursion ('$..x', '$[?(...)]') is refused when the script is read.
function parsePath(path) {
  const text = String(path).trim();
  if (!text.startsWith('$')) return null;
  const keys = [];
  const re = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[['"]([^'"]+)['"]\]/y;
  let at = 1;
  while (at < text.length) {
    re.lastIndex = at;
    const m = re.exec(text);
    if (!m) return null;
    keys.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3]));
    at = re.lastIndex;
  }
  return keys;
}

// The value at `keys` in a parsed body, or undefined.
function valueAt(body, keys) {
  let v = body;
  for (const k of keys) {
    if (v === null || typeof v !== 'object') return undefined;
    v = v[k];
  }
  return v;
}

// Captures of one answer's text into `vars`; returns the names it could not capture.
function capture(text, captures, vars) {
  if (!captures || !captures.length) return [];
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    return captures.map((c) => c.as);
  }
  const missed = [];
  for (const c of captures) {
    const v = valueAt(body, c.keys);
    if (v === undefined) missed.push(c.as);
    else vars[c.as] = v;
  }
  return missed;
}

module.exports = { parsePath, valueAt, capture };
