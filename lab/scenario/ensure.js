'use strict';

// An Artillery script's `config.ensure` (or the ensure plugin's settings) as the lab's
// thresholds (lab/results/thresholds.js), so the run is judged on what the script asks:
//   legacy:     { p95: 200, max: 500, maxErrorRate: 1 }          at most, and errors at most N%
//   thresholds: [{ 'http.response_time.p99': 250 }]             below
//   conditions: [{ expression: 'http.response_time.p95 < 250 and vusers.failed == 0' }]
// A metric the lab does not measure is refused by name, never dropped.
const LATENCY = {
  min: null,
  max: 'max',
  mean: 'mean',
  median: 'p50',
  p50: 'p50',
  p75: 'p75',
  p90: 'p90',
  p95: 'p95',
  p99: 'p99',
};

// 'http.response_time.p99' (or engine.http..., plugins.metrics-by-endpoint.response_time.NAME.p99)
// -> the lab's metric, or null.
function labMetric(name) {
  const m = /^(?:engine\.)?http\.response_time\.(\w+)$/.exec(name);
  if (m && LATENCY[m[1]]) return LATENCY[m[1]];
  const byName = /^plugins\.metrics-by-endpoint\.response_time\.(.+)\.(\w+)$/.exec(name);
  if (byName && LATENCY[byName[2]]) return `${LATENCY[byName[2]]}{${byName[1]}}`;
  if (/^(?:core\.)?vusers\.failed$/.test(name)) return 'errors';
  return null;
}

function artilleryEnsure(ensure, fail) {
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
        if (!lab || typeof limit !== 'number')
          fail(['ensure', k, i], `a threshold on ${metric || '?'}, which the lab does not measure`);
        out.push(`${lab}<${limit}`);
      });
    } else if (k === 'conditions') {
      if (!Array.isArray(v)) fail(['ensure', k], 'a list of { expression }');
      v.forEach((c, i) => {
        for (const part of String(c?.expression ?? '').split(/\s+and\s+/)) {
          const m = /^\s*([\w.{}\s/-]+?)\s*(<=|>=|<|>|==)\s*(\d+(?:\.\d+)?)\s*$/.exec(part);
          const lab = m && labMetric(m[1]);
          if (!lab)
            fail(['ensure', k, i, 'expression'], `"${part.trim()}" is not a comparison of a metric the lab measures`);
          if (m[2] === '==') {
            if (lab !== 'errors' || Number(m[3]) !== 0)
              fail(['ensure', k, i, 'expression'], `"${part.trim()}": == only as "vusers.failed == 0"`);
            out.push('errors<=0');
          } else out.push(`${lab}${m[2]}${m[3]}`);
        }
      });
    } else if (k === 'maxErrorRate') {
      if (typeof v !== 'number') fail(['ensure', k], 'a share of errors in %');
      out.push(`errors<=${v}%`);
    } else if (LATENCY[k]) {
      if (typeof v !== 'number') fail(['ensure', k], 'milliseconds');
      out.push(`${LATENCY[k]}<=${v}`);
    } else if (k !== 'strict')
      fail(['ensure', k], 'not a check the lab knows (thresholds, conditions, maxErrorRate, p50..p99, max, mean)');
  }
  return out;
}

module.exports = { artilleryEnsure, labMetric };
