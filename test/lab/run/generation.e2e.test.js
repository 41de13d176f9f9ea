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

// What the server received, by its own clock: when each request came. A run is judged by the
// span its requests were sent over, against its plan, and by nothing arriving once the lab has
// ended (its generator stopped, not left running); the lab's own start and summary, which take
// longer on a busy machine, are not in it. (Judged once by the wall time of the whole command:
// 65.9 s where 60 was asked, beside five other files, CI run Z.)
let target;
let arrivals = [];
beforeAll(async () => {
  target = await listen((req, res) => {
    arrivals.push(Date.now());
    res.end('ok');
  });
});
const spanS = () => (arrivals.at(-1) - arrivals[0]) / 1000;
// Nothing more reaches the server for 2 s after the lab ended.
async function nothingAfter() {
  const seen = arrivals.length;
  await new Promise((r) => setTimeout(r, 2000));
  return arrivals.length - seen;
}
afterAll(() => target.close());

test('closed honours --duration inside a long flow', async () => {
  arrivals = [];
  const r = await lab([
    'scenario',
    ...flagsOf({ script: LONG, target: `${target.url}/`, generator: 'closed', duration: 3, json: true }),
    ...(await ownPlace()),
  ]);
  const s = jsonOf(r);
  expect(s.status).toBe('completed');
  expect(s.requestsCompleted).toBeGreaterThan(100);
  // Sent over its 3 s and the stop's signal (before, it ran as long as the loop did: minutes).
  expect(spanS()).toBeLessThan(3 + 5);
  expect(await nothingAfter()).toBe(0);
}, 60000);

test('fast: the run is stopped at its plan and drain, with what it measured, and says so', async () => {
  arrivals = [];
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
  expect(arrivals.length).toBeGreaterThanOrEqual(s.requestsCompleted);
  // Sent over the plan's 2 s and its 30 s of drain, then the generator's stop (the loop alone
  // would send for some 17 minutes).
  expect(spanS()).toBeLessThan(32 + 5);
  expect(await nothingAfter()).toBe(0);
}, 90000);
