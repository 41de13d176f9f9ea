'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawn } = require('node:child_process');
const { lab, tmpStateDir, ROOT, studyArgs } = require('../../helper');
const { studyPlan } = require('../../../lab/studies/course-plan');

describe('npm run study', () => {
  test("--plan without scale lists the course report's full matrix", async () => {
    const plan = studyPlan();
    const ids = plan.map((r) => r.id);
    expect(ids).toHaveLength(9 * 4 + 2);
    expect(ids).toEqual(
      expect.arrayContaining([
        'ping-load-single',
        'heavy-endurance-multi-replicated',
        'bbox2-spikes-multi',
        'characterize-bbox1',
        'characterize-bbox2',
      ]),
    );
    expect(ids.filter((i) => i.startsWith('ping-'))).toHaveLength(4); // ping: load only
    const r = await lab(['study', '--plan', '--dir', tmpStateDir()]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/38 runs, about 3:\d\d:\d\d in all/);
  });

  test('an interrupted study keeps its finished runs, and a second start skips them', async () => {
    const dir = tmpStateDir();
    // The lab's own generator: Artillery's start (~5 s a run) is tested in scenario-artillery.
    const settings = { endpoints: 'ping', deployments: 'single,replicated', scale: 0.03, rateScale: 0.1 };
    const args = await studyArgs(null, { ...settings, generator: 'fast', dir });
    const child = spawn(process.execPath, ['lab/cli', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    const exited = new Promise((r) => child.on('exit', (c) => r(c)));
    const deadline = Date.now() + 120000;
    while (!/run 2 of 2: ping-load-replicated/.test(stderr) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    await new Promise((r) => setTimeout(r, 2000));
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    const first = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'ping-load-single', 'summary.json'), 'utf8'));
    expect(first.status).toBe('completed');
    expect(fs.existsSync(path.join(dir, 'study.html'))).toBe(true);
    // The run was given its job (issue 85): the study's own words and flags for it, its folder
    // as data; kept in its folder.
    const job = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'ping-load-single', '.lab-job.json'), 'utf8'));
    expect(job).toMatchObject({ command: 'scenario', positionals: ['ping', 'load', 'single'] });
    expect(job.values).toMatchObject({ 'run-dir': path.join(dir, 'runs', 'ping-load-single'), generator: 'fast' });

    const again = await lab(args, { timeoutMs: 180000 });
    expect({ code: again.code, err: again.code ? again.stderr.slice(-1500) : '' }).toEqual({ code: 0, err: '' });
    expect(again.stderr).toMatch(/ping-load-single already done, skipped/);
    expect(again.stdout).toMatch(/2 of 2 runs done/);
    const html = fs.readFileSync(path.join(dir, 'study.html'), 'utf8');
    expect(html).toMatch(/<h2>ping load<\/h2>/);
    expect(html).toMatch(/single completed \d+ of \d+ requests/);
    expect(fs.readFileSync(path.join(dir, 'study.md'), 'utf8')).toMatch(/## ping load/);
  }, 300000);

  test('the report has the characterization of the black boxes with its evidence', async () => {
    const dir = tmpStateDir();
    const settings = { endpoints: 'bbox2', scenarios: 'load', deployments: 'single', scale: 0.03 };
    const args = await studyArgs(null, { ...settings, generator: 'fast', rateScale: 0.2, dir });
    const r = await lab(args, { timeoutMs: 240000 });
    expect(r.code).toBe(0);
    const html = fs.readFileSync(path.join(dir, 'study.html'), 'utf8');
    expect(html).toMatch(/<h2>bbox2 load<\/h2>/);
    expect(html).toMatch(/Section 2: characterization/);
    expect(html).toMatch(/Synchronous with 3 workers/);
    expect(html).toMatch(/class="deployment"/);
    // The characterization was given its job too (issue 85): the study's words for it, its
    // delays' scale, its folder as data, read by characterize's own table.
    const run = path.join(dir, 'runs', 'characterize-bbox2');
    const job = JSON.parse(fs.readFileSync(path.join(run, '.lab-job.json'), 'utf8'));
    expect(job).toMatchObject({ command: 'characterize', positionals: ['bbox2'] });
    expect(job.values).toMatchObject({ 'delay-scale': 0.2, 'run-dir': run, json: true });
    expect(fs.existsSync(path.join(run, 'result.json'))).toBe(true);
  }, 300000);
});
