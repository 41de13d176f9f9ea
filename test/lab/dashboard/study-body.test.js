'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { studyBody, headline } = require('../../../lab/dashboard/study-body');

// The study's live page body from a study folder as it stands: finished runs with their
// headline figures, the run going with its seconds so far, the rest to do.
test('a study in progress: runs done with their figures, the current one live, the rest to do', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'study-live-'));
  const plan = ['a', 'b', 'c'].map((id) => ({ id, what: `run ${id}` }));
  const runDir = (step) => path.join(dir, step.id);
  fs.mkdirSync(runDir(plan[0]));
  fs.writeFileSync(
    path.join(runDir(plan[0]), 'summary.json'),
    JSON.stringify({
      status: 'completed',
      meanResponseRate: 123.4,
      responseTimeMs: { p50: 1.5, p99: 9.9 },
      errors: { ETIMEDOUT: 2 },
    }),
  );
  fs.mkdirSync(runDir(plan[1]));
  const second = (at, launched) => ({
    type: 'second',
    at,
    launched,
    completed: launched,
    codes: { 200: launched },
    errors: {},
    latencyMs: { p50: 2, max: 5 },
  });
  fs.writeFileSync(
    path.join(runDir(plan[1]), 'records.jsonl'),
    `${[second(1000, 10), second(2000, 20)].map((r) => JSON.stringify(r)).join('\n')}\n{"type":"sec`,
  );
  const body = String(
    studyBody({
      title: 'T',
      plan,
      runDir,
      current: 1,
      startedAt: Date.now() - 5000,
      expectedS: 60,
      failures: {},
      headlines: new Map(),
    }),
  );
  expect(body).toMatch(/Run 2 of 3: b/);
  expect(body).toMatch(/data-done="1" data-total="3"/);
  expect(body).toMatch(/data-launched="30"/);
  expect(body).toMatch(
    /<td>a<\/td><td>run a<\/td><td>completed<\/td><td>123.4<\/td><td>1.5<\/td><td>9.9<\/td><td>2<\/td>/,
  );
  expect(body).toMatch(/<td>c<\/td><td>run c<\/td><td>to do<\/td>/);
  expect((body.match(/<figure class="chart"/g) || []).length).toBe(2);
  expect(headline(runDir(plan[2]))).toBeNull();
  fs.rmSync(dir, { recursive: true, force: true });
});
