'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { lab, listen, ownPlace, jsonOf, flagsOf } = require('../../helper');

// A run ends by its plan's time plus a stated drain, whatever the script does
// (lab/run/generation.js deadlineOf): a virtual user looping far past the plan is stopped.
const script = (text) => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'deadline-')), 'loop.yml');
  fs.writeFileSync(file, text);
  return file;
};
// Each virtual user runs 100,000 requests 10 ms apart: some 17 minutes, for a 2 s plan.
const LONG = script(`config:
  phases: [{ duration: 2, arrivalRate: 1 }]
scenarios:
  - flow:
      - loop:
          - get: { url: "/" }
          - think: 0.01
        count: 100000
`);

let target;
beforeAll(async () => {
  target = await listen((req, res) => res.end('ok'));
});
afterAll(() => target.close());

test('closed honours --duration inside a long flow', async () => {
  const t0 = Date.now();
  const r = await lab([
    'scenario',
    ...flagsOf({ script: LONG, target: `${target.url}/`, generator: 'closed', duration: 3, json: true }),
    ...(await ownPlace()),
  ]);
  const s = jsonOf(r);
  expect(s.status).toBe('completed');
  // 3 s of load and the lab's own start and summary: a tolerance for a busy 2-core machine
  // (before, it ran as long as the loop did).
  expect(Date.now() - t0).toBeLessThan(25000);
  expect(s.requestsCompleted).toBeGreaterThan(100);
}, 60000);

test('fast: the run is stopped at its plan and drain, with what it measured, and says so', async () => {
  const t0 = Date.now();
  const r = await lab(
    [
      'scenario',
      ...flagsOf({ script: LONG, target: `${target.url}/`, generator: 'fast', json: true }),
      ...(await ownPlace()),
    ],
    {
      timeoutMs: 90000,
    },
  );
  const s = jsonOf(r);
  expect(s.status).toBe("stopped at its deadline (the plan's 2 s and a drain of 30 s)");
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/the run passed its deadline/);
  expect(s.requestsCompleted).toBeGreaterThan(1000);
  // 32 s, then the generator's stop and the summary.
  expect(Date.now() - t0).toBeLessThan(60000);
}, 90000);
