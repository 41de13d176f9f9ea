'use strict';

const { labError } = require('../../common/errors');

// Pass/fail conditions on a run, like Artillery's `ensure` and k6's thresholds:
//   p50 p75 p90 p95 p99 max mean  response time in ms      --ensure 'p99<500'
//   errors                        failed requests and failed answers (400 or more, unless
//                                 --expect-status says otherwise), as a share of those launched
//                                 ('errors<1%') or a count ('errors<=5')
//   rate                          arrivals launched / asked, open loop ('rate>=0.99')
//   rps                           answers per second over the run ('rps>=100')
const METRICS = {
  p50: (s) => s.responseTimeMs?.p50,
  p75: (s) => s.responseTimeMs?.p75,
  p90: (s) => s.responseTimeMs?.p90,
  p95: (s) => s.responseTimeMs?.p95,
  p99: (s) => s.responseTimeMs?.p99,
  max: (s) => s.responseTimeMs?.max,
  mean: (s) => s.responseTimeMs?.mean,
  errors: (s, percent) => {
    // Failed answers as the run judged them (400 or more unless --expect-status); a summary
    // written before that was judged counted 5xx only.
    const fivexx = Object.entries(s.codes || {})
      .filter(([c]) => /^5\d\d$/.test(c))
      .reduce((a, [, v]) => a + v, 0);
    const n = s.answersFailed
      ? (s.requestsFailed ?? s.scenariosFailed ?? 0) + s.answersFailed.count
      : (s.scenariosFailed || 0) + fivexx;
    if (!percent) return n;
    // A share of the requests sent (a flow sends several a virtual user), or of those that
    // ended when more ended than were sent: a window of a run (a capacity level after its
    // warm-up) sees answers to requests sent before it, and read "errors 101.695%".
    const sent = s.answersFailed ? (s.requestsSent ?? s.scenariosLaunched) : s.scenariosLaunched;
    const of = Math.max(sent || 0, (s.requestsCompleted || 0) + (s.requestsFailed || 0));
    return of ? Math.round((n / of) * 100000) / 1000 : null;
  },
  rate: (s) => {
    const asked = (s.phases || []).reduce(
      (a, p) => a + (p.targetRate && p.targetRate.mean !== null ? p.targetRate.mean * p.durationS : 0),
      0,
    );
    return asked > 0 ? Math.round((s.scenariosLaunched / asked) * 1000) / 1000 : null;
  },
  rps: (s) => s.meanResponseRate,
  // Virtual users that failed (an error, a failed capture or check), as Artillery's
  // maxErrorRate counts them: of those created, whether or not they had ended.
  'vusers.failed': (s, percent) => {
    const created = s.scenariosLaunched ?? 0;
    const n = Math.max(0, created - (s.scenariosCompleted ?? 0));
    if (!percent) return n;
    return created ? Math.round((n / created) * 100000) / 1000 : null;
  },
};

const OPS = { '<': (a, b) => a < b, '<=': (a, b) => a <= b, '>': (a, b) => a > b, '>=': (a, b) => a >= b };

// One request's metrics (summary.requests[], lab/results/summary.js): `p99{POST /api/cart}<300`.
const PER_REQUEST = {
  ...Object.fromEntries(['p50', 'p75', 'p90', 'p95', 'p99', 'max', 'mean'].map((k) => [k, (r) => r.responseTimeMs?.[k]])),
  errors: (r, percent) => {
    const n = Object.values(r.errors || {}).reduce((a, b) => a + b, 0) + (r.failedAnswers || 0);
    if (!percent) return n;
    const of = Math.max(r.launched || 0, (r.completed || 0) + Object.values(r.errors || {}).reduce((a, b) => a + b, 0));
    return of ? Math.round((n / of) * 100000) / 1000 : null;
  },
};

// 'p99<500' or 'p99{GET /api/items}<500' -> { text, metric, name, op, limit, percent };
// anything else throws LAB_ERR_USAGE.
function parseThreshold(text) {
  // (An optional one, from an Artillery condition with strict: false, is reported only.)
  const optional = /\s*\(optional\)\s*$/.test(String(text));
  const bare = String(text).replace(/\s*\(optional\)\s*$/, '');
  const m = /^\s*([a-z0-9.]+)(?:\{([^{}]+)\})?\s*(<=|>=|<|>)\s*(\d+(?:\.\d+)?)\s*(%)?\s*$/.exec(bare);
  const table = m && m[2] !== undefined ? PER_REQUEST : METRICS;
  if (!m || !(m[1] in table) || (m[5] && !['errors', 'vusers.failed'].includes(m[1]))) {
    throw labError(
      'LAB_ERR_USAGE',
      `--ensure "${text}": expected METRIC OP NUMBER, e.g. p99<500, errors<1%, rate>=0.99 (metrics: ${Object.keys(METRICS).join(', ')}), or one request's as p99{GET /api/items}<300 (${Object.keys(PER_REQUEST).join(', ')})`,
    );
  }
  return Object.freeze({
    text: String(text).trim(),
    ...(optional ? { optional: true } : {}),
    metric: m[1],
    ...(m[2] !== undefined ? { name: m[2].trim() } : {}),
    op: m[3],
    limit: Number(m[4]),
    percent: Boolean(m[5]),
  });
}

// Each threshold with the run's measured value and whether it held; a value that could not
// be measured (no response times, an interrupted run, a request of no such name) fails.
function evaluate(thresholds, summary) {
  return thresholds.map((t) => {
    const request = t.name !== undefined ? (summary.requests || []).find((r) => r.name === t.name) : null;
    if (t.name !== undefined && !request) {
      return { ...t, value: null, unit: '', ok: false, note: `no request named "${t.name}" in this run` };
    }
    const value = request ? PER_REQUEST[t.metric](request, t.percent) : METRICS[t.metric](summary, t.percent);
    const ok = value !== null && value !== undefined && OPS[t.op](value, t.limit);
    return {
      ...t,
      value: value ?? null,
      unit: t.percent ? '%' : ['rate', 'rps', 'errors', 'vusers.failed'].includes(t.metric) ? '' : 'ms',
      ok,
    };
  });
}

module.exports = { parseThreshold, evaluate, METRICS, PER_REQUEST };
