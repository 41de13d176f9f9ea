'use strict';

const { parseThreshold, evaluate } = require('../results/thresholds');
const { labError } = require('../../common/errors');

// An SLO is a threshold of lab/results/thresholds.js on latency or errors, of the whole run or
// of one request by name: p99<200, errors<1%, p99{POST /api/cart}<300. A rate or a
// throughput is what the search finds, not something to hold.
function parseSlo(text) {
  let t;
  try {
    t = parseThreshold(text);
  } catch {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'slo',
      `"${text}"`,
      'expected like p99<200, errors<1% or p99{GET /api/items}<300',
    );
  }
  if (['rate', 'rps'].includes(t.metric)) {
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'slo',
      `"${text}"`,
      'the rate is what capacity finds; an SLO holds latency or errors',
    );
  }
  if (!['<', '<='].includes(t.op)) {
    throw labError('LAB_ERR_FLAG_VALUE', 'slo', `"${text}"`, 'an SLO is an upper bound (< or <=)');
  }
  // A bound no level can hold (a latency under 0, errors under 0%) or none can break (errors
  // under 100% or more of the requests) measures nothing: every search would end at its floor or
  // its ceiling.
  const never = neverHeldOrBroken(t);
  if (never) throw labError('LAB_ERR_FLAG_VALUE', 'slo', `"${text}"`, never);
  return t;
}

// Why an SLO can never hold or never break, or null.
function neverHeldOrBroken(t) {
  const strict = t.op === '<';
  if (t.metric === 'errors') {
    // (A share with its %, or a count: errors<=5.)
    const unit = t.percent ? '%' : '';
    if (t.limit < 0 || (strict && t.limit === 0))
      return `no run can hold it (errors under 0${unit}): give ${t.percent ? 'a share above 0%, like errors<1%' : 'a count, like errors<=5'}`;
    if (t.percent && (t.limit > 100 || (!strict && t.limit === 100)))
      return `no run can break it (errors ${strict ? 'under' : 'at most'} ${t.limit}% of the requests): give a share under 100%, like errors<1%`;
    return null;
  }
  if (t.limit < 0 || (strict && t.limit === 0))
    return `no run can hold it (a ${t.metric} under 0 ms): give a time above 0, like ${t.metric}<200`;
  return null;
}

// How many answers a level needs for its SLOs to mean something: 20 beyond the strictest
// percentile (2,000 for a p99), 1,000 to read an error share of a percent.
function samplesFor(slos) {
  let n = 100;
  for (const t of slos) {
    const q = /^p(\d+)$/.exec(t.metric);
    if (q) n = Math.max(n, Math.ceil(20 / (1 - Number(q[1]) / 100)));
    if (t.metric === 'errors') n = Math.max(n, t.percent ? Math.ceil(100 / Math.max(t.limit, 0.1)) * 10 : 100);
    if (t.metric === 'max') n = Math.max(n, 1000);
  }
  return n;
}

// An SLO on a request of no such name is refused before anything runs, naming the ones there
// are (it read as broken at every level, as if the deployment could take nothing).
// slos: parsed; names: the requests of the source (a script's, or the one of a path);
// source: how to name it in the message.
function assertSloNames(slos, names, source) {
  for (const t of slos) {
    if (t.name !== undefined && !names.includes(t.name)) {
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        'slo',
        `"${t.text}"`,
        `${source} has no request named "${t.name}"; its requests: ${names.join(', ')}`,
      );
    }
  }
}

// Each SLO judged on a level's figures (a summary-shaped object: responseTimeMs, requests...).
const judge = (slos, figures) => evaluate(slos, figures);

module.exports = { parseSlo, samplesFor, judge, assertSloNames };
