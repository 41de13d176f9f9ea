'use strict';

// JUnit XML of runs (--junit FILE), as every CI system reads it: one <testsuite> per run, one
// <testcase> per threshold (its expression, the measured value as a property), a crossed
// threshold a <failure> with both numbers. A run that did not complete is an <error> of its
// suite; an optional threshold crossed is a <skipped> with why. Pure: XML from summaries.

const esc = (v) =>
  String(v)
    // (XML 1.0 has no place for most control characters: they are dropped.)
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');

const measured = (t) => (t.value === null || t.value === undefined ? 'nothing' : `${t.value}${t.unit || ''}`);

function testcase(t, suite) {
  const name = esc(t.text);
  const cls = esc(`${suite}.thresholds`);
  const props = `      <properties>
        <property name="measured" value="${esc(measured(t))}"/>
        <property name="limit" value="${esc(`${t.op ?? ''}${t.limit ?? ''}${t.percent ? '%' : t.unit && t.limit !== undefined ? t.unit : ''}`)}"/>
        <property name="source" value="${esc(t.source ?? 'lab')}"/>
      </properties>`;
  if (t.ok) return `    <testcase name="${name}" classname="${cls}" time="0">\n${props}\n    </testcase>`;
  const why =
    t.source === 'artillery'
      ? `${t.text}: crossed, as Artillery judged it`
      : `${t.text}: measured ${measured(t)}, limit ${t.op}${t.limit}${t.percent ? '%' : t.unit || ''}${t.note ? ` (${t.note})` : ''}`;
  if (t.optional) {
    return `    <testcase name="${name}" classname="${cls}" time="0">\n${props}\n      <skipped message="${esc(`optional: ${why}`)}"/>\n    </testcase>`;
  }
  return `    <testcase name="${name}" classname="${cls}" time="0">\n${props}\n      <failure message="${esc(why)}" type="threshold">${esc(why)}</failure>\n    </testcase>`;
}

// One suite: { name, summary }.
function suite({ name, summary: s }) {
  const ts = s.thresholds || [];
  const failures = ts.filter((t) => !t.ok && !t.optional).length;
  const skipped = ts.filter((t) => !t.ok && t.optional).length;
  const errors = s.status === 'completed' ? 0 : 1;
  const head = `  <testsuite name="${esc(name)}" tests="${ts.length + errors}" failures="${failures}" errors="${errors}" skipped="${skipped}" time="${s.durationS ?? 0}" timestamp="${esc(s.startedAt ?? '')}">
    <properties>
      <property name="deployment" value="${esc(s.deployment?.label ?? s.target ?? '')}"/>
      <property name="requests" value="${s.requestsCompleted ?? 0}"/>
      <property name="p99 ms" value="${s.responseTimeMs?.p99 ?? ''}"/>
      <property name="results" value="${esc(s.resultsDir ?? '')}"/>
    </properties>`;
  const cases = ts.map((t) => testcase(t, name));
  if (errors) {
    cases.push(
      `    <testcase name="the run" classname="${esc(`${name}.run`)}" time="${s.durationS ?? 0}">\n      <error message="${esc(`the run ended ${s.status}`)}" type="run">${esc(`the run ended ${s.status}`)}</error>\n    </testcase>`,
    );
  }
  return `${head}\n${cases.join('\n')}\n  </testsuite>`;
}

// runs: [{ name, summary }] -> the file's text.
function junitXml(runs) {
  const tests = runs.reduce(
    (a, r) => a + (r.summary.thresholds || []).length + (r.summary.status === 'completed' ? 0 : 1),
    0,
  );
  const failures = runs.reduce(
    (a, r) => a + (r.summary.thresholds || []).filter((t) => !t.ok && !t.optional).length,
    0,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="node-deploy-lab" tests="${tests}" failures="${failures}">
${runs.map(suite).join('\n')}
</testsuites>
`;
}

module.exports = { junitXml, esc };
