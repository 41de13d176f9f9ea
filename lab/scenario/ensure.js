'use strict';

const { ONLY_ARTILLERY } = require('./artillery-features');

// An Artillery script's checks (config.ensure, or the ensure plugin's own settings, judged
// only when the plugin is on, as Artillery 2 judges them) as the lab's thresholds
// (lab/results/thresholds.js), with Artillery's own comparisons:
//   legacy:     { p95: 200, max: 500 }       below (Artillery: "p95 < 200", strict)
//               { maxErrorRate: 1 }          failed virtual users at most 1% of those created
//                                            (Artillery counts virtual users, not answers)
//   thresholds: [{ 'http.response_time.p99': 250 }]             below
//   conditions: [{ expression: 'http.response_time.p95 < 250 and vusers.failed == 0',
//                  strict: false }]           comparisons joined by "and"; strict: false is
//                                            reported and does not fail the run
// A check on a metric the lab does not measure is kept by name (foreign): the lab's engines
// refuse the script, and --generator artillery has Artillery judge it.
const LATENCY = { max: 'max', mean: 'mean', median: 'p50', p50: 'p50', p75: 'p75', p90: 'p90', p95: 'p95', p99: 'p99' };
const LEGACY = ['min', 'max', 'median', 'p95', 'p99'];

// 'http.response_time.p99' (or plugins.metrics-by-endpoint.response_time.NAME.p99,
// vusers.failed) -> the lab's metric, or null.
function labMetric(name) {
  const m = /^(?:engine\.)?http\.response_time\.(\w+)$/.exec(name);
  if (m && LATENCY[m[1]]) return LATENCY[m[1]];
  const byName = /^plugins\.metrics-by-endpoint\.response_time\.(.+)\.(\w+)$/.exec(name);
  if (byName && LATENCY[byName[2]]) return `${LATENCY[byName[2]]}{${byName[1]}}`;
  if (/^(?:core\.)?vusers\.failed$/.test(name)) return 'vusers.failed';
  return null;
}

// ensure: the mapping; fail(path, what): a malformed one; foreign(path, what): a check the lab
// cannot judge. Returns the thresholds' texts (an optional one ends with " (optional)").
function artilleryEnsure(ensure, fail, foreign = fail) {
  if (ensure === undefined || ensure === null) return [];
  if (typeof ensure !== 'object' || Array.isArray(ensure))
    return fail(['ensure'], 'a mapping (thresholds, conditions, or p95: ms)');
  const out = [];
  for (const [k, v] of Object.entries(ensure)) {
    if (k === 'thresholds') {
      if (!Array.isArray(v)) fail(['ensure', k], 'a list of { metric: value }');
      v.forEach((t, i) => {
        const [[metric, limit]] = Object.entries(t || { '': null });
        const lab = labMetric(metric);
        if (!lab || !Number.isFinite(Number(limit)))
          return foreign(['ensure', k, i], `a threshold on ${metric || '?'} (${ONLY_ARTILLERY.ensureMetric})`);
        return out.push(`${lab}<${Number(limit)}`);
      });
    } else if (k === 'conditions') {
      if (!Array.isArray(v)) fail(['ensure', k], 'a list of { expression }');
      v.forEach((c, i) => {
        const optional = c?.strict === false ? ' (optional)' : '';
        for (const part of String(c?.expression ?? '').split(/\s+and\s+/)) {
          const m = /^\s*([\w.{}\s/-]+?)\s*(<=|>=|<|>|==)\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
          const lab = m && labMetric(m[1]);
          if (!lab) {
            foreign(['ensure', k, i, 'expression'], `"${part.trim()}" (${ONLY_ARTILLERY.ensureMetric})`);
            continue;
          }
          if (m[2] === '==') {
            if (lab !== 'vusers.failed' || Number(m[3]) !== 0) {
              foreign(
                ['ensure', k, i, 'expression'],
                `"${part.trim()}" (${ONLY_ARTILLERY.ensureMetric}: == only as vusers.failed == 0)`,
              );
              continue;
            }
            out.push(`vusers.failed<=0${optional}`);
          } else out.push(`${lab}${m[2]}${m[3]}${optional}`);
        }
      });
    } else if (k === 'maxErrorRate') {
      if (!Number.isFinite(Number(v))) fail(['ensure', k], 'a share of failed virtual users in %');
      out.push(`vusers.failed<=${Number(v)}%`);
    } else if (LEGACY.includes(k)) {
      if (!Number.isFinite(parseInt(v, 10))) fail(['ensure', k], 'milliseconds');
      if (k === 'min') foreign(['ensure', k], `the minimum response time (${ONLY_ARTILLERY.ensureMetric})`);
      else out.push(`${LATENCY[k]}<${parseInt(v, 10)}`);
    }
    // (Anything else in it Artillery ignores: so does the lab.)
  }
  return out;
}

module.exports = { artilleryEnsure, labMetric };
