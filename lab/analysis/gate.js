'use strict';

const { jStat } = require('jstat');
const { labError } = require('../../common/errors');
const { t95 } = require('./student-t');

// compare as a CI gate (--fail-if 'p99>+10%'): is the new run worse than the base by more than
// a margin? Each side is one run or several (repetitions: a study's runs, a folder of runs).
//   one run a side:  the figures compared as they are;
//   several:         Welch's t-test, one-sided, on each run's figure: the new runs are worse
//                    when their mean exceeds the line (the base's mean moved by the margin) by
//                    more than chance explains at 2.5% (t above Student's 97.5% quantile).
// The figures are each run's own (its p99 from its own histogram): the test is on runs, and no
// percentile is averaged into a figure that is reported as one.

// What a condition may name, read from a summary; `worse`: the direction that is worse.
const METRICS = {
  p50: { read: (s) => s.responseTimeMs?.p50, worse: '>' },
  p90: { read: (s) => s.responseTimeMs?.p90, worse: '>' },
  p95: { read: (s) => s.responseTimeMs?.p95, worse: '>' },
  p99: { read: (s) => s.responseTimeMs?.p99, worse: '>' },
  max: { read: (s) => s.responseTimeMs?.max, worse: '>' },
  mean: { read: (s) => s.responseTimeMs?.mean, worse: '>' },
  errors: {
    read: (s) => {
      const sent = s.requestsSent ?? s.scenariosLaunched ?? 0;
      const failed = (s.requestsFailed ?? 0) + (s.answersFailed?.count ?? 0);
      return sent ? (failed / sent) * 100 : null;
    },
    worse: '>',
    unit: '%',
  },
  rps: { read: (s) => s.meanResponseRate, worse: '<' },
};

// 'p99>+10%', 'p99>+20' (ms), 'rps<-5%', 'errors>+1' (points of %).
function parseCondition(text) {
  const m = /^\s*([a-z0-9]+)\s*(>|<)\s*([+-])(\d+(?:\.\d+)?)\s*(%)?\s*$/.exec(String(text));
  const known = m && METRICS[m[1]];
  if (!known || (m[2] === '>' && m[3] !== '+') || (m[2] === '<' && m[3] !== '-') || known.worse !== m[2]) {
    throw labError(
      'LAB_ERR_USAGE',
      `--fail-if "${text}": expected METRIC>+N% or METRIC>+N for what grows when worse (${Object.keys(METRICS)
        .filter((k) => METRICS[k].worse === '>')
        .join(', ')}), METRIC<-N% for what falls (rps)`,
    );
  }
  return { text: String(text).trim(), metric: m[1], op: m[2], margin: Number(m[4]), relative: Boolean(m[5]) };
}

// (The mean, the sample variance (n - 1) and Student's t (./student-t.js) are jStat's; only
// Welch-Satterthwaite's two lines are written here.)
const mean = (xs) => jStat.mean(xs);
const variance = (xs) => (xs.length > 1 ? jStat.variance(xs, true) : 0);
const r3 = (v) => (v === null || !Number.isFinite(v) ? null : Math.round(v * 1000) / 1000);

// The line the new runs must not cross: base's figure moved by the margin, in the worse way.
function lineOf(c, base) {
  const sign = c.op === '>' ? 1 : -1;
  return c.relative ? base * (1 + (sign * c.margin) / 100) : base + sign * c.margin;
}

// One condition on two sides of summaries: { text, base, new, line, worse, test, why }.
function judge(c, baseRuns, newRuns) {
  const read = (s) => METRICS[c.metric].read(s);
  const b = baseRuns.map(read).filter(Number.isFinite);
  const n = newRuns.map(read).filter(Number.isFinite);
  if (!b.length || !n.length) {
    return {
      text: c.text,
      worse: true,
      why: `${c.metric} was not measured on ${!b.length ? 'the base' : 'the new'} side`,
    };
  }
  const line = lineOf(c, mean(b));
  const out = {
    text: c.text,
    metric: c.metric,
    base: r3(mean(b)),
    new: r3(mean(n)),
    line: r3(line),
    runs: [b.length, n.length],
  };
  if (b.length === 1 || n.length === 1) {
    const worse = c.op === '>' ? mean(n) > line : mean(n) < line;
    return { ...out, worse, test: 'one run a side: the figures as they are' };
  }
  // Welch: the new mean against the line, each side's variance its own (the line moves with
  // the base's mean; a relative margin scales its variance too).
  const scale = c.relative ? 1 + ((c.op === '>' ? 1 : -1) * c.margin) / 100 : 1;
  const vb = (variance(b) * scale * scale) / b.length;
  const vn = variance(n) / n.length;
  const se = Math.sqrt(vb + vn);
  const diff = (c.op === '>' ? 1 : -1) * (mean(n) - line);
  const df = se > 0 ? (vb + vn) ** 2 / ((vb * vb) / (b.length - 1) + (vn * vn) / (n.length - 1)) : Infinity;
  const t = se > 0 ? diff / se : diff > 0 ? Infinity : diff < 0 ? -Infinity : 0;
  // (Welch-Satterthwaite's degrees of freedom as they are, fractional: t's quantile takes them.)
  const crit = t95(df);
  return {
    ...out,
    worse: t > crit,
    test: `Welch's t-test, one-sided at 2.5%: t = ${r3(t)} against ${r3(crit)} (${Number.isFinite(df) ? Math.round(df * 10) / 10 : 'many'} degrees of freedom)`,
  };
}

function gate(conditions, baseRuns, newRuns) {
  const verdicts = conditions.map((c) => judge(c, baseRuns, newRuns));
  return { verdicts, worse: verdicts.some((v) => v.worse) };
}

function gateText({ verdicts, worse }) {
  const lines = verdicts.map((v) =>
    v.why
      ? `WORSE  ${v.text}: ${v.why}`
      : `${v.worse ? 'WORSE' : 'ok   '}  ${v.text}: base ${v.base}, new ${v.new}, line ${v.line} (${v.runs[0]} vs ${v.runs[1]} run(s); ${v.test})`,
  );
  lines.push(worse ? 'the new run is worse: exit 99' : 'no condition met: the new run is not worse');
  return lines.join('\n');
}

module.exports = { parseCondition, gate, gateText, METRICS };
