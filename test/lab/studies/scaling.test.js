'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const scaling = require('../../../lab/studies/scaling');
const { scalingOf } = require('../../../lab/capacity/scaling');
const { usl } = require('../../../lab/capacity/usl');

// The scaling study's plan and its report, from capacity.json files as the sweeps write them
// (the sweeps themselves: test/lab/capacity/scaling.e2e.test.js).
const machine = { hostname: 'vm', cpuModel: 'AMD EPYC', cores: 2, memoryGiB: 23.5, node: '20' };

// A study folder with a sweep's capacity.json for each kind: { kind: law }.
function studyDir(laws) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lab-scaling-study-'));
  for (const [kind, law] of Object.entries(laws)) {
    const verdicts = [1, 2, 3, 4].map((n) => ({
      replicas: n,
      verdict: { maxRate: Math.round(usl(n, law)), bound: 'deployment', cpuMsPerRequestByTier: {} },
    }));
    const run = path.join(dir, 'runs', `sweep-${kind}`);
    fs.mkdirSync(run, { recursive: true });
    fs.writeFileSync(
      path.join(run, 'capacity.json'),
      JSON.stringify({ scaling: scalingOf(verdicts, { deployment: 'replicated' }) }),
    );
  }
  return dir;
}

test('the plan: a capped sweep of 1 to 4 replicas behind each kind, quick when scaled down', () => {
  const plan = scaling.plan({ app: '/srv/app', paths: ['/api/items'], scale: 0.1, balancers: ['nginx', 'node'] });
  expect(plan.map((r) => r.id)).toEqual(['sweep-nginx', 'sweep-node']);
  expect(plan[0].args).toEqual(
    expect.arrayContaining([
      'capacity',
      '/api/items',
      '--replicas',
      '1,2,3,4',
      '--cap',
      'replica=15%',
      '--balancer',
      'nginx',
    ]),
  );
  expect(plan[0].args).toEqual(expect.arrayContaining(['--repetitions', '1']));
  expect(scaling.plan({})).toEqual([]);
  expect(() => scaling.plan({ app: '/a', paths: ['/a', '/b'], scale: 1 })).toThrow(/sweeps one path/);
});

test("the report names the kind that stops scaling first, with each one's fit and a chart of all", () => {
  const dir = studyDir({
    nginx: { sigma: 0.02, kappa: 0, lambda: 30 },
    node: { sigma: 0.25, kappa: 0.02, lambda: 30 },
  });
  try {
    const plan = scaling.plan({ app: '/srv/app', paths: ['/api/items'], scale: 0.1, balancers: ['nginx', 'node'] });
    const { html, markdown } = scaling.render({ studyDir: dir, plan, machine });
    expect(markdown).toMatch(/\*\*node stops scaling first: 4 replicas held \d+% of 4 times what one held/);
    expect(markdown).toMatch(/\| nginx \| 30 \| /);
    expect(String(html)).toContain('What N replicas held behind each balancer');
    expect(String(html)).toContain('Behind node');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
