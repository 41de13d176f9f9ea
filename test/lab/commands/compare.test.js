'use strict';

const { refusalOf, jsonOf } = require('../../helper');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const compare = require('../../../lab/commands/compare');

// compare's sides (lab/commands/compare.js): only runs of one test (what loaded it, its
// scenario and deployment) are repetitions. `compare RUN results/` once pooled ten unrelated
// runs as "1 vs 10" and exited 99; a file as a side gave ENOTDIR, exit 1.
const run = (parent, name, { endpoint = 'ping', scenario = 'load', deployment = 'single', p99 = 10 } = {}) => {
  const dir = path.join(parent, name);
  fs.mkdirSync(dir, { recursive: true });
  const summary = {
    status: 'completed',
    endpoint,
    scenario,
    deployment: { name: deployment, label: deployment },
    requestsSent: 100,
    requestsCompleted: 100,
    requestsFailed: 0,
    meanResponseRate: 50,
    responseTimeMs: { p50: p99 / 2, p90: p99, p95: p99, p99, max: p99, mean: p99 / 2 },
    errors: {},
    thresholds: [],
  };
  fs.writeFileSync(path.join(dir, 'summary.json'), JSON.stringify(summary));
  return dir;
};
const refusal = (argv) => refusalOf(async () => compare(argv, { log: () => {} }), { code: 'accepted' });

test('a folder of runs of different tests is refused as a side, each test named', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cmp-'));
  const base = run(root, 'base');
  const results = path.join(root, 'results');
  run(results, 'a');
  run(results, 'b', { endpoint: 'heavy' });
  run(results, 'c', { deployment: 'replicated' });
  const r = await refusal([base, results, '--fail-if', 'p99>+10%']);
  expect(r).toMatchObject({ code: 'LAB_ERR_RESULTS_FOLDER', exit: 2 });
  expect(r.message).toMatch(/holds runs of 3 different tests, which are not repetitions of one another/);
  expect(r.message).toMatch(/ping load on single: a; heavy load on single: b; ping load on replicated: c/);
});

test('a folder of repetitions of one test is a side, judged with every run', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cmp-'));
  const base = run(root, 'base');
  const reps = path.join(root, 'reps');
  for (const n of ['1', '2', '3']) run(reps, n, { p99: 10 + Number(n) / 10 });
  const r = await compare([base, reps, '--fail-if', 'p99>+50%', '--json'], { log: () => {} });
  expect(r.exitCode).toBe(0);
  expect(jsonOf(r).verdicts[0].runs).toEqual([1, 3]);
});

test('a file, or a path that is not there, as a side is a usage error', async () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cmp-'));
  const base = run(root, 'base');
  const file = path.join(base, 'summary.json');
  for (const argv of [
    [base, file, '--fail-if', 'p99>+10%'],
    [base, file],
  ]) {
    const r = await refusal(argv);
    expect(r).toMatchObject({ code: 'LAB_ERR_RESULTS_FOLDER', exit: 2 });
    expect(r.message).toMatch(/summary\.json: it is a file: give a run's folder/);
  }
  expect((await refusal([base, path.join(root, 'nope')])).message).toMatch(/nope: no such folder$/);
});
