'use strict';

const set = require('lodash/set');
const { template } = require('../../scenario/template');

// Captures and matches of one answer, as Artillery's HTTP engine runs them (its engine_util
// `captureOrMatch`): json (JSONPath), regexp (with group and flags), header and selector
// (cheerio), each expression templated first; a match compares what it extracts with its
// templated `value`. Captures and matches are strict unless `strict: false` (or
// config.defaults.strictCapture: false for captures): one that fails fails the virtual user
// ("Failed capture or match", as Artillery counts it) and none of the answer's captures is
// set. Before, a failed capture went on with an empty value (`GET /pets/`).
//   specs: { capture: [...], match: [...] } as the script writes them
//   res: { status, headers (lowercase names), text }
// Returns { failed: bool, captures: { name: value } } (captures already set on ctx.vars
// when none failed).
function captureOrMatch(specs, res, ctx, { strictDefault = true } = {}) {
  const captures = {};
  let failed = false;
  for (const spec of [...(specs.capture || []), ...(specs.match || [])]) {
    const { value, error } = extract(spec, res, ctx);
    if (spec.value !== undefined) {
      // A match (any spec with a value, as Artillery reads it): strict unless it says otherwise.
      const expected = template(spec.value, ctx);
      if ((error || value !== expected) && spec.strict !== false) failed = true;
      continue;
    }
    if (!spec.as) continue;
    const missing = error !== undefined || value === undefined || value === '';
    const strict = spec.strict === false ? false : spec.strict === true || strictDefault;
    if (missing && strict) failed = true;
    captures[spec.as] = value;
  }
  if (!failed) for (const [k, v] of Object.entries(captures)) set(ctx.vars, k, v);
  return { failed, captures };
}

// What one spec reads from an answer: { value } or { error }.
function extract(spec, res, ctx) {
  const body = res.text ?? '';
  if (spec.json !== undefined) {
    let doc;
    try {
      doc = JSON.parse(body);
    } catch (err) {
      return { error: err };
    }
    return { value: jsonPath(doc, template(spec.json, ctx), spec) };
  }
  if (spec.regexp !== undefined) return { value: regexp(body, template(spec.regexp, ctx), spec) };
  if (spec.header !== undefined) return { value: res.headers?.[template(spec.header, ctx)] || '' };
  if (spec.selector !== undefined) return { value: selector(body, template(spec.selector, ctx), spec) };
  // An xpath capture needs Artillery's optional XML package, which it does not install:
  // Artillery then reads a JSON answer by no path (nothing) and anything else as nothing.
  return { value: '' };
}

// The value at a JSONPath: a plain path ($.a.b[0]) read directly; anything else by
// jsonpath-plus, as Artillery reads it. Several results: one of them at random (Artillery's
// own), unless `multiple: false` asks for all.
const PLAIN = /^\$((\.[A-Za-z_$][\w$-]*)|(\[\d+\])|(\[['"][^'"]+['"]\]))*$/;
function jsonPath(doc, expr, spec) {
  if (doc === null || typeof doc !== 'object') return '';
  if (typeof expr === 'string' && PLAIN.test(expr) && spec.multiple === undefined) {
    let v = doc;
    for (const m of expr.slice(1).matchAll(/\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[['"]([^'"]+)['"]\]/g)) {
      if (v === null || typeof v !== 'object') return undefined;
      v = v[m[1] ?? (m[2] !== undefined ? Number(m[2]) : m[3])];
    }
    return v;
  }
  let results;
  try {
    results = require('jsonpath-plus').JSONPath({ path: expr, json: doc, wrap: spec.multiple ?? true });
  } catch {
    results = undefined;
  }
  if (!results) return '';
  if (spec.multiple === false) return results;
  return results.length > 1 ? results[Math.floor(Math.random() * results.length)] : results[0];
}

function regexp(text, expr, spec) {
  const m = new RegExp(expr, spec.flags || undefined).exec(text);
  if (!m) return '';
  if (spec.group && m.groups) return m.groups[spec.group];
  if (spec.group && m[spec.group]) return m[spec.group];
  return m[0] || '';
}

function selector(html, expr, spec) {
  const $ = require('cheerio').load(html);
  const els = $(expr);
  let i = 0;
  if (spec.index === 'random') i = Math.ceil(Math.random() * els.get().length - 1);
  else if (spec.index === 'last') i = els.get().length - 1;
  else if (spec.index !== undefined) i = Number(spec.index);
  return els.slice(i, i + 1).attr(spec.attr);
}

module.exports = { captureOrMatch, extract, jsonPath };
