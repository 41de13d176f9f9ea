'use strict';

const { labError } = require('../../common/errors');
const { phaseRates } = require('../../artillery/phases');
const { LIMITS } = require('./limits');

// The one scenario model every generator runs (lab/generators/): a plain object, checked
// once here and frozen. The lab's own catalogue (./catalogue.js) and an Artillery script
// (./from-artillery.js) both become one.
//
//   { name, source: { kind: 'catalogue' | 'artillery', file? },
//     phases: [{ name, duration, arrivalRate?, rampTo?, arrivalCount?, pause? }],
//     variables: { name: value | [values] },      each virtual user draws one of a list
//     payload: [{ file, fields, order, rows }],    each virtual user takes a row (./payload.js)
//     flows: [{ name, weight, steps }],            each virtual user runs one, by weight
//     ensure: ['p99<200', ...],                    thresholds (lab/results/thresholds.js)
//     timeoutS,
//     features: [...],    what the scenario uses beyond one request (generators declare theirs)
//     foreign: [{ feature, where }] }  what no lab engine runs (Artillery's own may)
//   step: { request: { name, method, url, headers, query, json | body, capture, objects? } }
//       | { think: seconds } | { loop: { count, steps } }
//
// A request's name is its `name:`, else METHOD and its URL as written (templates unexpanded).
const FEATURES = Object.freeze({
  flows: 'more than one request a virtual user',
  weights: 'several weighted flows',
  think: 'think times',
  loop: 'loops',
  capture: 'captures from JSON answers',
  templates: 'variables in URLs, headers or bodies',
  payload: 'a CSV payload',
  variables: 'config variables',
  objects: 'a popularity law over many objects (the asset endpoint)',
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

// Every request of a flow's steps (loops included), in order.
function requestsOf(steps) {
  const out = [];
  for (const s of steps) {
    if (s.request) out.push(s.request);
    else if (s.loop) out.push(...requestsOf(s.loop.steps));
  }
  return out;
}

// Every request name of the model, in the order they first appear.
const requestNames = (model) => [...new Set(model.flows.flatMap((f) => requestsOf(f.steps).map((r) => r.name)))];

function checkStep(step, where) {
  const bad = (what) => {
    throw labError('LAB_ERR_SCENARIO_FILE', where, what);
  };
  const kinds = ['request', 'think', 'loop'].filter((k) => step[k] !== undefined);
  if (kinds.length !== 1) bad('a step is one of request, think or loop');
  if (step.think !== undefined && !(Number.isFinite(step.think) && step.think >= 0 && step.think <= LIMITS.thinkS))
    bad(`think is seconds, 0 to ${LIMITS.thinkS}`);
  if (step.loop) {
    if (!Number.isInteger(step.loop.count) || step.loop.count < 1 || step.loop.count > LIMITS.loopCount)
      bad(`loop.count is a whole number of 1 to ${LIMITS.loopCount}`);
    step.loop.steps.forEach((s, i) => checkStep(s, `${where}.loop[${i}]`));
  }
  if (step.request) {
    const r = step.request;
    if (!METHODS.includes(r.method)) bad(`method ${r.method}`);
    if (typeof r.url !== 'string' || !r.url) bad('a request has no url');
    if (typeof r.name !== 'string' || !r.name) bad('a request has no name');
    if (r.json !== undefined && r.body !== undefined) bad('a request has json or body, not both');
  }
}

// Checks and freezes a model; what is wrong is a programmer's mistake here (user input is
// checked where it is read, with its line), so the message names the path in the model.
function checkModel(model) {
  const where = (p) => `${model.source?.file || model.name}: ${p}`;
  if (!Array.isArray(model.phases) || !model.phases.length) {
    throw labError('LAB_ERR_SCENARIO_FILE', where('phases'), 'no phases');
  }
  for (const [i, ph] of model.phases.entries()) {
    if (!(ph.duration > 0))
      throw labError('LAB_ERR_SCENARIO_FILE', where(`phases[${i}]`), 'a phase lasts more than 0 s');
    // The limits (./limits.js), whatever the model came from: a script is checked where it is
    // read, with its lines; flags that scale a catalogue's phases meet them here.
    const { from, to } = phaseRates(ph);
    if (Math.max(from, to) > LIMITS.arrivalRate)
      throw labError(
        'LAB_ERR_SCENARIO_FILE',
        where(`phases[${i}]`),
        `at most ${LIMITS.arrivalRate} arrivals a second (the lab's limit)`,
      );
  }
  if (model.phases.reduce((a, ph) => a + ph.duration, 0) > LIMITS.planS)
    throw labError(
      'LAB_ERR_SCENARIO_FILE',
      where('phases'),
      `${LIMITS.planS / 3600} hours in all at most (the lab's limit)`,
    );
  if (!Array.isArray(model.flows) || !model.flows.length) {
    throw labError('LAB_ERR_SCENARIO_FILE', where('flows'), 'no flow');
  }
  model.flows.forEach((f, i) => {
    if (!(f.weight > 0)) throw labError('LAB_ERR_SCENARIO_FILE', where(`flows[${i}]`), 'a weight above 0');
    // (A flow of steps only Artillery runs, a Socket.IO one say, has none of the lab's.)
    if (!requestsOf(f.steps).length && !model.foreign?.length) {
      throw labError('LAB_ERR_SCENARIO_FILE', where(`flows[${i}]`), 'no request');
    }
    f.steps.forEach((s, k) => checkStep(s, where(`flows[${i}].steps[${k}]`)));
  });
  return deepFreeze({ variables: {}, payload: [], ensure: [], features: [], foreign: [], ...model });
}

function deepFreeze(o) {
  if (o && typeof o === 'object' && !Object.isFrozen(o)) {
    Object.freeze(o);
    for (const v of Object.values(o)) deepFreeze(v);
  }
  return o;
}

// What a model uses, for the generators' declarations: ./from-artillery.js and
// ./catalogue.js call it on the model they build.
function featuresOf(model) {
  const out = new Set();
  const all = model.flows.flatMap((f) => requestsOf(f.steps));
  if (model.flows.some((f) => requestsOf(f.steps).length > 1 || f.steps.some((s) => s.loop))) out.add('flows');
  if (model.flows.length > 1) out.add('weights');
  const walk = (steps) => {
    for (const s of steps) {
      if (s.think !== undefined) out.add('think');
      if (s.loop) {
        out.add('loop');
        walk(s.loop.steps);
      }
    }
  };
  model.flows.forEach((f) => walk(f.steps));
  if (all.some((r) => r.capture && r.capture.length)) out.add('capture');
  const text = JSON.stringify(all.map((r) => [r.url, r.headers, r.json, r.body, r.query]));
  if (text.includes('{{')) out.add('templates');
  if (model.payload?.length) out.add('payload');
  if (Object.keys(model.variables || {}).length) out.add('variables');
  if (all.some((r) => r.objects)) out.add('objects');
  return [...out];
}

module.exports = { checkModel, featuresOf, requestsOf, requestNames, FEATURES, METHODS };
