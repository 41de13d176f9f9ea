'use strict';

const { studyPlan, MATRIX } = require('../../../lab/studies/course-plan');

test("the course's matrix: each endpoint's scenarios on the four deployments, then both boxes characterized", () => {
  const runs = studyPlan();
  const scenarios = runs.filter((r) => r.kind === 'scenario');
  const perDeployment = Object.values(MATRIX).reduce((a, s) => a + s.length, 0);
  expect(scenarios.length).toBe(perDeployment * 4);
  expect(new Set(scenarios.map((r) => r.deployment))).toEqual(
    new Set(['single', 'replicated', 'multi', 'multi-replicated']),
  );
  expect(runs.filter((r) => r.kind === 'characterize').map((r) => r.id)).toEqual([
    'characterize-bbox1',
    'characterize-bbox2',
  ]);
  expect(new Set(runs.map((r) => r.id)).size).toBe(runs.length);
});

test('a selection: endpoints, scenarios and deployments narrow the runs; no characterization when asked', () => {
  const runs = studyPlan({ endpoints: ['bbox2'], scenarios: ['spikes'], deployments: ['multi'], characterize: false });
  expect(runs.map((r) => r.id)).toEqual(['bbox2-spikes-multi']);
});

test("a run's expected time: its phases and the overhead; the ones that can time out a tail more", () => {
  const [ping] = studyPlan({ endpoints: ['ping'], deployments: ['single'], characterize: false });
  const [heavy] = studyPlan({
    endpoints: ['heavy'],
    scenarios: ['load'],
    deployments: ['single'],
    characterize: false,
  });
  expect(heavy.expectedS - ping.expectedS).toBe(10);
});

test("a quick study scales the boxes' delays, never below 0.2, and their expected time with them", () => {
  const at = (scale) =>
    studyPlan({ scale, endpoints: ['bbox1'], scenarios: [] }).find((r) => r.kind === 'characterize');
  expect(at(1).delayScale).toBe(1);
  expect(at(0.5).delayScale).toBe(0.5);
  expect(at(0.05).delayScale).toBe(0.2);
  expect(at(0.5).expectedS).toBeLessThan(at(1).expectedS);
});
