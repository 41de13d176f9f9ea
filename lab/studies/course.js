'use strict';

const { studyPlan, MATRIX } = require('./course-plan');
const { COURSE } = require('../topology/deployments');
const { SCENARIOS } = require('../../artillery/scenarios');
const { renderStudy } = require('../report/study-report');
const { scaleValues } = require('./passed');

// Seed 003, the course: each endpoint's scenarios against the four deployments, then both
// black boxes characterized. Its plan is lab/studies/course-plan.js's matrix; its report is
// lab/report/study-report.js (the first study, kept as it was).
function plan(o) {
  return studyPlan(o).map((run) => ({
    ...run,
    what:
      run.kind === 'characterize' ? `characterize ${run.target}` : `${run.endpoint} ${run.scenario} ${run.deployment}`,
    args:
      run.kind === 'characterize'
        ? ['characterize', run.target, '--delay-scale', String(run.delayScale)]
        : ['scenario', run.endpoint, run.scenario, run.deployment],
    // (What the user typed for the study, as the values it parsed: ./passed.js.)
    values:
      run.kind === 'characterize'
        ? {}
        : {
            ...scaleValues(o, { duration: SCENARIOS[run.scenario].usesDuration }),
            ...(o.generator ? { generator: o.generator } : {}),
          },
  }));
}

module.exports = {
  name: 'course',
  seed: '003',
  title: 'The course study, reproduced',
  what: "the course's matrix: ping, heavy, bbox1, bbox2 under load / spikes / endurance on the four deployments, then both boxes characterized",
  // The course study's own options (the others have none of these).
  flags: ['rate-scale', 'duration', 'endpoints', 'scenarios', 'deployments', 'generator'],
  defaultDir: 'study',
  plan,
  render: renderStudy,
  MATRIX,
  DEPLOYMENTS: COURSE.map((p) => p.name),
};
