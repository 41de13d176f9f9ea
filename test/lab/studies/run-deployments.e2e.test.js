'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, studyArgs, fixtureApp } = require('../../helper');

// npm run study -- deployments on a path the tests' shop does not have: the first run's every
// answer is a 404, which no deployment changes, so the study says so and leaves out the
// other runs of that path instead of measuring refusals for minutes.
const SHOP = fixtureApp('shop');

test('a path your service refuses: its first run says so, its other runs are left out, exit 1; the same when resumed', async () => {
  const dir = tmpStateDir();
  const args = await studyArgs('deployments', {
    app: SHOP,
    endpoints: '/nowhere',
    scenarios: 'load',
    deployments: 'single,replicated',
    scale: 0.05,
    runs: 'nowhere-load',
    dir,
  });
  const r = await lab(args, { timeoutMs: 180000 });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(
    /nowhere-load-single: every answer was a refusal \(404 x\d+\): your service refuses \/nowhere whichever the deployment/,
  );
  expect(r.stderr).toMatch(/run 2 of 2: nowhere-load-replicated left out: \/nowhere got only refusals/);
  expect(r.stdout).toMatch(/1 of 2 runs done/);
  const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
  expect(md).toMatch(/\*\*nowhere-load-single failed\*\*: every answer was a refusal/);
  expect(md).toMatch(/\*\*nowhere-load-replicated failed\*\*: not run: \/nowhere got only refusals/);
  // Your service went to the run as the value the study parsed, not as text (issue 85), and the
  // run deployed it: its summary names it.
  const run = path.join(dir, 'runs', 'nowhere-load-single');
  const job = JSON.parse(fs.readFileSync(path.join(run, '.lab-job.json'), 'utf8'));
  expect(job).toMatchObject({ command: 'scenario', positionals: ['/nowhere', 'load', 'single'] });
  expect(job.values).toMatchObject({ app: SHOP, scale: 0.05 });
  expect(job.given).toEqual(expect.arrayContaining(['app', 'scale']));
  expect(JSON.stringify(JSON.parse(fs.readFileSync(path.join(run, 'summary.json'), 'utf8')))).toContain('shop');
  // Again in the same folder: the finished run is read again and the rule still holds.
  const again = await lab(args, { timeoutMs: 120000 });
  expect(again.code).toBe(1);
  expect(again.stderr).toMatch(/nowhere-load-single already done, skipped/);
  expect(again.stderr).toMatch(/nowhere-load-replicated left out/);
}, 320000);
