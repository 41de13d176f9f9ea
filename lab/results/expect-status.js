'use strict';

const { labError } = require('../../common/errors');

// Which answers count as successes. By default a status of 400 or more is a failed answer,
// as k6's http_req_failed counts it: a run whose every answer was a 404 once passed
// `--ensure 'errors<1%'` as completed. --expect-status 200,404 (or ranges: 2xx,404, 200-299)
// says which statuses are expected instead.
const DEFAULT = Object.freeze({ text: '<400', parts: [[100, 399]] });

function parseExpect(text) {
  if (text === undefined || text === null || text === DEFAULT.text) return DEFAULT;
  const parts = String(text)
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => {
      let m;
      if ((m = /^([1-5])xx$/i.exec(p))) return [Number(m[1]) * 100, Number(m[1]) * 100 + 99];
      if ((m = /^(\d{3})-(\d{3})$/.exec(p)) && Number(m[1]) <= Number(m[2])) return [Number(m[1]), Number(m[2])];
      if ((m = /^(\d{3})$/.exec(p))) return [Number(m[1]), Number(m[1])];
      return null;
    });
  if (!parts.length || parts.some((p) => !p || p[0] < 100 || p[1] > 599)) {
    throw labError(
      'LAB_ERR_USAGE',
      `--expect-status "${text}": expected statuses or ranges, like 200,404 or 2xx,404 or 200-299`,
    );
  }
  return Object.freeze({ text: String(text).trim(), parts });
}

// expect: as parseExpect returns it (or its plain copy from a summary). A code that is not a
// number (Artillery's, or a status it could not read) is not judged here.
function isExpected(expect, code) {
  const n = Number(code);
  if (!Number.isInteger(n)) return true;
  return (expect || DEFAULT).parts.some(([lo, hi]) => n >= lo && n <= hi);
}

// The failed answers among { code: count }: { count, codes }.
function failedAnswers(codes, expect) {
  const out = {};
  let count = 0;
  for (const [code, n] of Object.entries(codes || {})) {
    if (isExpected(expect, code)) continue;
    out[code] = n;
    count += n;
  }
  return { count, codes: out };
}

module.exports = { parseExpect, isExpected, failedAnswers, DEFAULT };
