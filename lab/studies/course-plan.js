'use strict';

const { SCENARIOS } = require('../../artillery/scenarios');
const { buildPhases } = require('../../artillery/phases');
const { COURSE } = require('../topology/deployments');

// The course report's matrix, as data: which scenarios each endpoint went through (every
// one against the four deployments), then section 2's characterization of both boxes.
const MATRIX = {
  ping: ['load'],
  heavy: ['load', 'endurance'],
  bbox1: ['load', 'spikes', 'endurance'],
  bbox2: ['load', 'spikes', 'endurance'],
};
const CHARACTERIZE = ['bbox1', 'bbox2'];

// Seconds a run costs besides its phases: deploy, Artillery's start, the last requests
// (up to the 10 s client time-out when the system is overloaded), the last flush, teardown.
// Measured here: 8-12 s for a short run.
const RUN_OVERHEAD_S = 12;
const TIMEOUT_TAIL_S = 10;
// A characterization with the real delays took 92 s for the worst case seen (15 workers at
// 1.6 s); it scales with the delay.
const CHARACTERIZE_S = 100;

// options: { endpoints, scenarios, deployments, scale, rateScale, durationS, characterize }
function studyPlan(o = {}) {
  const scale = o.scale ?? 1;
  const runs = [];
  for (const [endpoint, scenarios] of Object.entries(MATRIX)) {
    if (o.endpoints && !o.endpoints.includes(endpoint)) continue;
    for (const scenario of scenarios) {
      if (o.scenarios && !o.scenarios.includes(scenario)) continue;
      for (const preset of COURSE) {
        if (o.deployments && !o.deployments.includes(preset.name)) continue;
        const phases = buildPhases(endpoint, scenario, { scale, rateScale: o.rateScale, durationS: o.durationS });
        const phaseS = phases.reduce((a, p) => a + p.duration, 0);
        runs.push({
          kind: 'scenario',
          id: `${endpoint}-${scenario}-${preset.name}`,
          endpoint,
          scenario,
          deployment: preset.name,
          expectedS: phaseS + RUN_OVERHEAD_S + (endpoint === 'heavy' || endpoint === 'bbox2' ? TIMEOUT_TAIL_S : 0),
        });
      }
    }
  }
  if (o.characterize !== false) {
    const delayScale = characterizeDelayScale(scale);
    for (const box of CHARACTERIZE) {
      if (o.endpoints && !o.endpoints.includes(box)) continue;
      runs.push({
        kind: 'characterize',
        id: `characterize-${box}`,
        target: box,
        delayScale,
        expectedS: Math.round(CHARACTERIZE_S * delayScale) + 5,
      });
    }
  }
  return runs;
}

// A quick study scales the black boxes' delays too, but not below 0.2: at ~50 ms the
// loopback's own noise becomes a visible part of the delay measured.
function characterizeDelayScale(scale) {
  return scale >= 1 ? 1 : Math.max(0.2, scale);
}

module.exports = { studyPlan, MATRIX, CHARACTERIZE, SCENARIOS_USED: Object.keys(SCENARIOS) };
