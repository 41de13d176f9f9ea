'use strict';

const { junitXml } = require('../../../lab/outputs/junit');

// A summary with thresholds as lab/results/thresholds.js evaluates them.
const summary = (thresholds, extra = {}) => ({
  status: 'completed',
  durationS: 12.5,
  startedAt: '2026-11-25T10:00:00.000Z',
  requestsCompleted: 300,
  responseTimeMs: { p99: 41.2 },
  deployment: { label: 'replicated' },
  thresholds,
  ...extra,
});
const held = { text: 'p99<500', metric: 'p99', op: '<', limit: 500, value: 41.2, unit: 'ms', ok: true };
const crossed = {
  text: 'errors<1%',
  metric: 'errors',
  op: '<',
  limit: 1,
  percent: true,
  value: 3.5,
  unit: '%',
  ok: false,
};

test('a suite per run, a testcase per threshold, a failure with both numbers for a crossed one', () => {
  const xml = junitXml([{ name: 'ping-load-replicated', summary: summary([held, crossed]) }]);
  expect(xml).toMatch(
    /^<\?xml version="1.0" encoding="UTF-8"\?>\n<testsuites name="node-deploy-lab" tests="2" failures="1">/,
  );
  expect(xml).toMatch(
    /<testsuite name="ping-load-replicated" tests="2" failures="1" errors="0" skipped="0" time="12.5"/,
  );
  expect(xml).toMatch(/<testcase name="p99&lt;500" classname="ping-load-replicated.thresholds" time="0">/);
  expect(xml).toMatch(/<property name="measured" value="41.2ms"\/>/);
  expect(xml).toMatch(/<failure message="errors&lt;1%: measured 3.5%, limit &lt;1%" type="threshold">/);
  // exactly one failure element
  expect(xml.match(/<failure /g)).toHaveLength(1);
});

test('a run that did not complete is an error; an optional threshold crossed is skipped; names are escaped', () => {
  const xml = junitXml([
    { name: 'a "quoted" & <run>', summary: summary([{ ...crossed, optional: true }], { status: 'interrupted' }) },
    { name: 'second', summary: summary([]) },
  ]);
  expect(xml).toMatch(
    /<testsuite name="a &quot;quoted&quot; &amp; &lt;run&gt;" tests="2" failures="0" errors="1" skipped="1"/,
  );
  expect(xml).toMatch(/<skipped message="optional: errors&lt;1%/);
  expect(xml).toMatch(/<error message="the run ended interrupted" type="run">/);
  expect(xml.match(/<testsuite /g)).toHaveLength(2);
});
