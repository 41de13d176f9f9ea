'use strict';

const has = require('lodash/has');
const { template } = require('../../scenario/template');

// The expect plugin's checks (artillery-plugin-expect, active when the script lists it under
// config.plugins.expect), as it judges an answer: each a { ok, type } the run counts
// (plugins.expect.ok / .failed, as Artillery's counters) and, on a failure, the run's exit
// code 21, Artillery's. A failed check fails the virtual user only with the plugin's
// reportFailuresAsErrors; with expectDefault200 a request without checks expects a 200.
const JSON_TYPES = ['application/json', 'application/problem+json', 'application/ld+json'];

// The answer's body as the plugin reads it: parsed when the answer says JSON (null when it
// does not parse), else its text.
function bodyOf(res) {
  const type = res.headers?.['content-type'];
  if (typeof res.text === 'string' && type && JSON_TYPES.some((t) => type.includes(t))) {
    try {
      return JSON.parse(res.text);
    } catch {
      return null;
    }
  }
  return res.text;
}

const CHECKS = {
  statusCode: (ex, body, res, ctx) => {
    const want = template(ex.statusCode, ctx);
    const ok = Array.isArray(want)
      ? want.some((x) => Number(res.status) === Number(x))
      : Number(res.status) === Number(want);
    return { ok, type: 'statusCode' };
  },
  notStatusCode: (ex, body, res, ctx) => {
    const not = template(ex.notStatusCode, ctx);
    const ok = Array.isArray(not)
      ? !not.some((x) => Number(res.status) === Number(x))
      : Number(res.status) !== Number(not);
    return { ok, type: 'notStatusCode' };
  },
  contentType: (ex, body, res, ctx) => {
    const want = template(ex.contentType, ctx);
    const type = res.headers?.['content-type'];
    if (want === 'json') {
      return {
        ok: body !== null && typeof body === 'object' && Boolean(type) && JSON_TYPES.some((t) => type.includes(t)),
        type: 'contentType',
      };
    }
    return { ok: Boolean(type) && type.toLowerCase() === String(want).toLowerCase(), type: 'contentType' };
  },
  hasHeader: (ex, body, res, ctx) => ({ ok: Boolean(res.headers?.[template(ex.hasHeader, ctx)]), type: 'hasHeader' }),
  headerEquals: (ex, body, res, ctx) => {
    const [name, value] = template(ex.headerEquals, ctx);
    const got = res.headers?.[name];
    return { ok: Boolean(got) && got.toString() === (value || '').toString(), type: `header ${name} values equals` };
  },
  hasProperty: (ex, body, res, ctx) => ({
    ok: body !== null && typeof body === 'object' && has(body, template(ex.hasProperty, ctx)),
    type: 'hasProperty',
  }),
  notHasProperty: (ex, body, res, ctx) => ({
    ok: body !== null && typeof body === 'object' && !has(body, template(ex.notHasProperty, ctx)),
    type: 'notHasProperty',
  }),
  equals: (ex, body, res, ctx) => ({
    ok: new Set((ex.equals || []).map((v) => String(template(String(v), ctx)))).size === 1,
    type: 'equals',
  }),
  matchesRegexp: (ex, body, res, ctx) => {
    try {
      return { ok: new RegExp(template(ex.matchesRegexp, ctx)).test(body), type: 'matchesRegexp' };
    } catch {
      return { ok: false, type: 'matchesRegexp' };
    }
  },
  // A cache header (Cloudflare's, CloudFront's and Fastly's, Vercel's) starting with hit or
  // stale (cdnHit: true), or miss (false).
  cdnHit: (ex, body, res) => {
    const h = res.headers || {};
    const want = ex.cdnHit ? ['hit', 'stale'] : ['miss'];
    const ok = ['cf-cache-status', 'x-cache', 'x-vercel-cache'].some(
      (k) => h[k] && want.some((v) => String(h[k]).toLowerCase().startsWith(v)),
    );
    return { ok, type: 'cdnHit' };
  },
  jmespath: (ex, body) => jmes(ex, body, 'jmespath'),
  jpath: (ex, body) => jmes(ex, body, 'jpath'),
};

function jmes(ex, body, type) {
  if (body === null || typeof body !== 'object') return { ok: false, type };
  return { ok: Boolean(require('jmespath').search(body, ex.jmespath || ex.jpath)), type };
}

// The checks a request asks, as the plugin lists them (a list, or a mapping of one each).
function expectationsOf(expect) {
  if (!expect) return [];
  return Array.isArray(expect) ? expect : Object.entries(expect).map(([k, v]) => ({ [k]: v }));
}

// Judges one answer: [{ ok, type }] (an unknown check is left out, as the plugin does).
function judge(expect, res, ctx, { expectDefault200 = false } = {}) {
  let list = expectationsOf(expect);
  if (!list.length && expectDefault200) list = [{ statusCode: 200 }];
  const body = bodyOf(res);
  const out = [];
  for (const ex of list) {
    const check = CHECKS[Object.keys(ex)[0]];
    if (check) out.push(check(ex, body, res, ctx));
  }
  return out;
}

module.exports = { judge, CHECKS, expectationsOf };
