'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { stepSummary, appendStepSummary } = require('../../../lab/outputs/step-summary');

const s = {
  status: 'completed',
  endpoint: 'ping',
  scenario: 'load',
  deployment: { label: 'replicated' },
  requestsCompleted: 300,
  requestsSent: 300,
  requestsFailed: 0,
  durationS: 6,
  generator: { name: 'fast' },
  responseTimeMs: { p50: 1.2, p90: 3, p95: 4, p99: 9.5, max: 20 },
  requests: [{ name: 'GET /ping', launched: 300, completed: 300, responseTimeMs: { p50: 1.2, p99: 9.5 } }],
  thresholds: [
    { text: 'p99<5', value: 9.5, unit: 'ms', ok: false },
    { text: 'errors<1%', value: 0, unit: '%', ok: true },
  ],
};

test('the headline, the percentiles, the requests and the thresholds as Markdown tables', () => {
  const md = stepSummary(s, { reportFile: '/r/report.html' });
  expect(md).toMatch(/^### ping load on replicated: 1 threshold\(s\) crossed\n/);
  expect(md).toContain(
    '| p50 ms | p90 ms | p95 ms | p99 ms | max ms |\n|---:|---:|---:|---:|---:|\n| 1.2 | 3 | 4 | 9.5 | 20 |',
  );
  expect(md).toContain('| GET /ping | 300 | 300 | 1.2 | 9.5 |');
  expect(md).toContain('| `p99<5` | 9.5ms | **crossed** |');
  expect(md).toContain('Report: `/r/report.html`');
});

test('appended to the file $GITHUB_STEP_SUMMARY names, and only then', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-step-'));
  const file = path.join(dir, 'summary.md');
  fs.writeFileSync(file, 'before\n');
  expect(appendStepSummary('one\n', { GITHUB_STEP_SUMMARY: file })).toBe(true);
  expect(appendStepSummary('two\n', { GITHUB_STEP_SUMMARY: file })).toBe(true);
  expect(appendStepSummary('three\n', {})).toBe(false);
  expect(fs.readFileSync(file, 'utf8')).toBe('before\none\ntwo\n');
  fs.rmSync(dir, { recursive: true, force: true });
});
