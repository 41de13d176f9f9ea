'use strict';

const path = require('node:path');
const { labError } = require('../../common/errors');
const { LIMITS, readBounded } = require('./limits');

// One request as every generator sends it: { method, path, headers, body }, from a path
// and the --method, --body and --header flags (or from a scenario's step).
const METHODS = Object.freeze(['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']);

function parseMethod(raw) {
  const m = String(raw).toUpperCase();
  if (!METHODS.includes(m)) throw labError('LAB_ERR_FLAG_VALUE', 'method', raw, `one of ${METHODS.join(', ')}`);
  return m;
}

// 'Name: value' -> [name, value]; header names as HTTP allows them.
function parseHeader(raw) {
  const m = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):\s*(.*)$/.exec(String(raw));
  if (!m || /[\r\n]/.test(m[2])) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'header',
      `"${raw}"`,
      "expected 'Name: value', like 'authorization: Bearer x'",
    );
  }
  return [m[1].toLowerCase(), m[2]];
}

// --body: a literal, or @file (relative to where the lab was run).
function readBody(raw) {
  if (raw === undefined) return null;
  if (!String(raw).startsWith('@')) return String(raw);
  const file = path.resolve(String(raw).slice(1));
  return readBounded(file, LIMITS.bodyBytes, (why) => {
    throw labError('LAB_ERR_FLAG_VALUE', 'body', raw, `${file}: ${why}`);
  });
}

// The request of a run's flags: a body that parses as JSON goes as application/json unless
// a content-type header says otherwise; a body makes the default method POST.
function requestOf({ path: p, method, body, headers = [] }) {
  const text = readBody(body);
  const h = Object.fromEntries(headers);
  if (text !== null && !('content-type' in h)) {
    let json = false;
    try {
      JSON.parse(text);
      json = true;
    } catch {
      // a plain body
    }
    h['content-type'] = json ? 'application/json' : 'text/plain';
  }
  const m = method ?? (text !== null ? 'POST' : 'GET');
  if (text !== null && ['GET', 'HEAD'].includes(m)) {
    throw labError('LAB_ERR_FLAGS_EXCLUDE', 'body', `method ${m}`, `a ${m} carries no body (add --method POST)`);
  }
  return Object.freeze({ method: m, path: p, headers: Object.freeze(h), body: text });
}

module.exports = { requestOf, parseMethod, parseHeader, readBody, METHODS };
