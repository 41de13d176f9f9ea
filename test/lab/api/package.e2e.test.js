'use strict';

// The lab as a user installs it (issue 85): packed (npm pack), installed from the tarball into
// a project of the test's own with a small service of its own (the paced service: its limit
// is its timers', set by the query), then run there as `npx node-deploy-lab capacity` and
// from a Jest test of that project's that calls require('node-deploy-lab').capacity(...).

const fs = require('node:fs');
const path = require('node:path');
const { ROOT, runCommand, freePortBase, jsonOf } = require('../../helper');
const { projectForTest } = require('../../package-project');

let project;

beforeAll(async () => {
  // Packed and installed by the end-to-end set's global setup before the other files start
  // (test/package-project.js says why), or here when run without it; judged here.
  const prepared = await projectForTest();
  project = prepared.project;
  const { packed, shipped, installed, error } = prepared.record;
  expect({ error: error ?? null, packed }).toMatchObject({ error: null, packed: { code: 0 } });
  // What a run needs ships, and not the tests nor the benches; npm-shrinkwrap.json (the lock
  // file's versions) ships, and the lab's checkout keeps no copy of it after the pack.
  expect(shipped).toEqual(expect.arrayContaining(['lab/cli/bin.js', 'lab/api/index.d.ts', 'npm-shrinkwrap.json']));
  expect(shipped).toEqual(
    expect.arrayContaining(['nginx/nginx.conf.template', 'scripts/setup.sh', 'service/index.js']),
  );
  expect(shipped.filter((f) => /^(test|bench)\//.test(f))).toEqual([]);
  expect(fs.existsSync(path.join(ROOT, 'npm-shrinkwrap.json'))).toBe(false);
  expect(installed).toMatchObject({ code: 0 });
  expect(fs.existsSync(path.join(project, 'node_modules', 'node-deploy-lab', 'lab', 'cli', 'bin.js'))).toBe(true);
}, 960000);

afterAll(async () => {
  // (Whatever a failed test left deployed in the project's state folder, stopped by the
  // lab's own down, before the project goes.)
  if (!project) return;
  await runCommand('npx', ['--no-install', 'node-deploy-lab', 'down'], { cwd: project, timeoutMs: 60000 });
  fs.rmSync(project, { recursive: true, force: true });
}, 120000);

test('npx node-deploy-lab capacity in the project: its service searched, state and results in the project', async () => {
  const portBase = await freePortBase(20);
  // 100 ms a request, one at a time: 10/s at most, whatever the machine.
  // (Ahead of the other files' processes, as the other tests that judge a paced service.)
  const r = await runCommand(
    'nice',
    [
      '-n',
      '-10',
      'npx',
      '--no-install',
      'node-deploy-lab',
      'capacity',
      '/work?ms=100&c=1',
      '--app',
      '.',
      '--deployments',
      'single',
      '--slo',
      'p99<500',
      '--start',
      '5',
      '--max-rate',
      '40',
      '--repetitions',
      '1',
      '--hold',
      '3s',
      '--warmup',
      '1s',
      '--port-base',
      String(portBase),
      '--json',
    ],
    { cwd: project, timeoutMs: 400000 },
  );
  const out = jsonOf(r);
  expect(r.code).toBe(0);
  const [d] = out.deployments;
  // Held where the service's timers allow: never half of its 10/s, and above it only by what
  // a queue growing for the 7 s of a verification (1 s of warm-up, 6 s held) keeps under
  // p99<500: 4 requests waiting at most, 0.6/s. (10.7/s held under p99<1000 once: right.)
  expect(d.maxRate).toBeGreaterThanOrEqual(5);
  expect(d.maxRate).toBeLessThanOrEqual(10.6);
  // The lab's folders are the project's, not inside node_modules.
  const runs = fs.readdirSync(path.join(project, 'results')).filter((n) => n.includes('capacity'));
  expect(runs).toHaveLength(1);
  expect(fs.existsSync(path.join(project, 'results', runs[0], 'capacity.json'))).toBe(true);
  expect(fs.existsSync(path.join(project, '.lab'))).toBe(true);
  expect(fs.readdirSync(path.join(project, 'node_modules', 'node-deploy-lab'))).not.toContain('results');
}, 420000);

test("a Jest test of the project's calls require('node-deploy-lab').capacity and passes on its service", async () => {
  const portBase = await freePortBase(20);
  fs.writeFileSync(
    path.join(project, 'shop.test.js'),
    `const lab = require('node-deploy-lab');

test('GET /work holds 10/s under p99<500 in the single deployment', async () => {
  const levels = [];
  const result = await lab
    .capacity({
      endpoint: '/work?ms=20&c=1',
      app: __dirname,
      deployments: ['single'],
      slo: 'p99<500',
      start: 5,
      maxRate: 10,
      repetitions: 1,
      hold: '3s',
      warmup: '1s',
      portBase: ${portBase},
    })
    .on('log', (line) => levels.push(line));
  expect(result.deployments[0].maxRate).toBeGreaterThanOrEqual(10);
  expect(levels.some((l) => /^single: 10\\/s -> /.test(l))).toBe(true);
}, 300000);
`,
  );
  const jest = path.join(ROOT, 'node_modules', 'jest', 'bin', 'jest.js');
  const r = await runCommand(
    'nice',
    ['-n', '-10', process.execPath, jest, '--ci', '--rootDir', project, 'shop.test.js'],
    {
      cwd: project,
      timeoutMs: 360000,
    },
  );
  expect({ code: r.code, stderr: r.stderr.slice(-3000) }).toMatchObject({ code: 0 });
  expect(r.stderr).toMatch(/✓ GET \/work holds 10\/s under p99<500 in the single deployment/);
}, 400000);
