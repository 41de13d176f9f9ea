'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { lab, tmpStateDir, studyArgs } = require('../../helper');
const { journey, openPage } = require('../../browser');

// npm run study -- elasticity (lab/studies/elasticity.js), quick: the lab's /work spikes on 1
// replica held, 2 held and autoscaled between them, then a rollout of the lab's service that
// drains and of one that exits at once; the tables, the findings, and the pages as a person
// meets them in Chromium (the study's, and the autoscaled run's with its replicas' curve).
journey(
  'study elasticity: fixed and autoscaled under spikes, two rollouts',
  async () => {
    const dir = tmpStateDir();
    const args = await studyArgs('elasticity', { autoscale: '1-2', scale: 0.15, dir }, { ports: 80 });
    const r = await lab(args, { timeoutMs: 900000 });
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    // (With the study's last words when it fails: its exit alone once said nothing of why.)
    expect({ code: r.code, end: r.code ? r.stderr.slice(-2500) : '' }).toEqual({ code: 0, end: '' });
    const md = fs.readFileSync(path.join(dir, 'study.md'), 'utf8');
    expect(md).toMatch(/\| 1 held \| 1 \| \d+ \| [\d.,]+ \| (at once|after [\d.]+ s|never), /);
    expect(md).toMatch(/\| autoscaled \| 1-2 \(/);
    expect(md).toMatch(/- Autoscaled between 1 and 2, the replicas used [\d.,]+ replica-seconds/);
    expect(md).toMatch(/\| The lab's service draining on SIGTERM \| replica-1 → replica-4, .* \| 0 \|/);
    const drain = JSON.parse(fs.readFileSync(path.join(dir, 'runs', 'rollout-drain', 'summary.json'), 'utf8'));
    expect(drain.rollout.replaced).toHaveLength(3);
    return dir;
  },
  async (dir, browser) => {
    const study = await openPage(browser, path.join(dir, 'study.html'), 'study-elasticity');
    expect(study.problems).toEqual([]);
    expect(study.bad).toEqual([]);
    expect(study.tables.find((t) => t.heads.includes('replica-seconds')).rows).toBe(3);
    expect(study.tables.find((t) => t.heads.includes('dropped at SIGTERM')).rows).toBe(2);
    // The autoscaled run's report: the replicas drawn against the load, the decisions listed.
    const run = await openPage(browser, path.join(dir, 'runs', 'autoscaled', 'report.html'), 'run-autoscaled');
    expect(run.problems).toEqual([]);
    expect(run.bad).toEqual([]);
    const curve = run.charts.find((c) => c.title === 'Replicas against arrivals and failures');
    expect(curve.marks).toBeGreaterThanOrEqual(3);
    expect(run.tables.find((t) => t.heads.includes('desired')).rows).toBeGreaterThan(0);
    expect(run.text).toMatch(/Autoscaling \(Kubernetes' HPA rule\)/);
  },
  { timeoutMs: 960000 },
);
