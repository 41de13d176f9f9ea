'use strict';

const { labError } = require('../../common/errors');
const { phaseRates } = require('../../artillery/phases');
const { LIMITS } = require('./limits');

// The one scenario model every generator runs (lab/generators/): a plain object, checked
// once here and frozen. The lab's own catalogue (./catalogue.js) and an Artillery script
// (./from-artillery.js) both become one.
//
//   { name, source: { kind: 'catalogue' | 'artillery', file? },
//     phases: [{ name, duration, arrivalRate?, rampTo?, arrivalCount?, pause?, maxVusers? }],
//     variables: { name: value | [values] },      each virtual user draws one of a list
//     payload: [{ file, fields, order, rows, loadAll, name }]  (./payload.js)
//     flows: [{ name, weight, steps, hooks? }],    each virtual user runs one, by weight
//     before?, after?: { steps }                  run once, before and after the phases
//     http?: { timeoutS, defaultHeaders, defaultCookie, strictCapture, cookieJarOptions },
//     processor?: file, expect?: { reportFailuresAsErrors, expectDefault200 },
//     ensure: ['p99<200', ...],                    thresholds (lab/results/thresholds.js)
//     timeoutS,
//     features: [...],    what the scenario uses beyond one request (generators declare theirs)
//     foreign: [{ feature, where }],  what no lab engine runs (Artillery's own may)
//     unknown: [{ where, line }],     fields neither the lab nor Artillery's HTTP engine knows
//     notes: [{ where, note }] }      where the lab differs from Artillery, on purpose
//   step: { request: { name, method, url, headers, query?, json | body | form | formData, capture,
//                      match, expect?, cookie?, auth?, followRedirect?, gzip?, ifTrue?, probability?,
//                      beforeRequest?, afterResponse?, objects? } }
//       | { think: seconds | 'a duration or template' }
//       | { loop: { count, over, whileTrue, loopValue, loopElement, steps } }
//       | { parallel: { steps, limit } }               its steps at once, `limit` at most
//       | { ws: { payload?, capture, match } }        a ws flow's message (lab/scenario/artillery-ws.js)
//       | { sio: { namespace, emit, response, acknowledge } }  a socketio flow's event
//                                                   (lab/scenario/artillery-socketio.js)
//       | { log: text } | { function: name }
//
// A request's name is its `name:`, else METHOD and its URL as written (templates unexpanded).
const FEATURES = Object.freeze({
  flows: 'more than one request a virtual user',
  weights: 'several weighted flows',
  think: 'think times',
  loop: 'loops',
  parallel:
    "parallel steps (made at once, sent one at a time on the virtual user's one connection, as Artillery's client sends them)",
  capture: 'captures from answers (json, regexp, header, selector) and match',
  templates: 'variables in URLs, headers or bodies',
  payload: 'a CSV payload',
  variables: 'config variables',
  objects: 'a popularity law over many objects (the asset endpoint)',
  cookies: "cookies (config.defaults.cookie, a request's cookie)",
  expect: "the expect plugin's checks",
  hooks: 'before and after sections',
  auth: 'basic auth',
  ifTrue: 'conditional requests (ifTrue)',
  probability: "a request's probability",
  log: 'log steps',
  processor:
    'processor functions (beforeRequest, afterResponse, function steps): CommonJS, an ES module (.mjs), or TypeScript (.ts) compiled as Artillery compiles it',
  maxVusers: 'a cap on virtual users (maxVusers)',
  form: 'form bodies',
  formData: 'multipart bodies (formData), files included',
  ws: "WebSocket scenarios (Artillery's ws engine: connect, send, capture and match on the next message)",
  socketio:
    "Socket.IO scenarios (Artillery's socketio engine: emit, responses on a channel, acknowledgements, namespaces, HTTP steps between)",
});

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

// Every request of a flow's steps (loops included), in order.
function requestsOf(steps = []) {
  const out = [];
  for (const s of steps) {
    if (s.request) out.push(s.request);
    else if (s.loop) out.push(...requestsOf(s.loop.steps));
    else if (s.parallel) out.push(...requestsOf(s.parallel.steps));
  }
  return out;
}

// Every request name of the model, in the order they first appear.
const requestNames = (model) => [...new Set(model.flows.flatMap((f) => requestsOf(f.steps).map((r) => r.name)))];

function checkStep(step, where) {
  const bad = (what) => {
    throw labError('LAB_ERR_SCENARIO_FILE', where, what);
  };
  const kinds = ['request', 'think', 'loop', 'parallel', 'ws', 'sio', 'log', 'function'].filter(
    (k) => step[k] !== undefined,
  );
  if (kinds.length !== 1) bad('a step is one of request, think, loop, parallel, ws, sio, log or function');
  if (
    typeof step.think === 'number' &&
    !(Number.isFinite(step.think) && step.think >= 0 && step.think <= LIMITS.thinkS)
  )
    bad(`think is seconds, 0 to ${LIMITS.thinkS}`);
  if (step.loop) {
    const c = step.loop.count;
    if (typeof c === 'number' && !(Number.isInteger(c) && c <= LIMITS.loopCount))
      bad(`loop.count is a whole number up to ${LIMITS.loopCount}`);
    step.loop.steps.forEach((s, i) => checkStep(s, `${where}.loop[${i}]`));
  }
  if (step.parallel) {
    if (!(Number.isInteger(step.parallel.limit) && step.parallel.limit >= 1)) bad('parallel.limit is 1 or more');
    step.parallel.steps.forEach((s, i) => checkStep(s, `${where}.parallel[${i}]`));
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
    // (A flow of steps only Artillery runs, a Socket.IO one say, has none of the lab's; one
    // of function steps sends what its processor sends.)
    if (!f.steps.length && !model.foreign?.length && !model.unknown?.length) {
      throw labError('LAB_ERR_SCENARIO_FILE', where(`flows[${i}]`), 'no step');
    }
    f.steps.forEach((s, k) => checkStep(s, where(`flows[${i}].steps[${k}]`)));
  });
  return deepFreeze({
    variables: {},
    payload: [],
    ensure: [],
    features: [],
    foreign: [],
    unknown: [],
    notes: [],
    before: null,
    after: null,
    processor: null,
    expect: null,
    ...model,
  });
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
  if (model.flows.some((f) => requestsOf(f.steps).length > 1 || f.steps.some((s) => s.loop || s.parallel)))
    out.add('flows');
  if (model.flows.length > 1) out.add('weights');
  if (model.flows.some((f) => f.engine === 'ws')) out.add('ws');
  if (model.flows.some((f) => f.engine === 'socketio')) out.add('socketio');
  const walk = (steps) => {
    for (const s of steps) {
      if (s.think !== undefined) out.add('think');
      if (s.log !== undefined) out.add('log');
      if (s.function !== undefined) out.add('processor');
      if (s.loop) {
        out.add('loop');
        if (s.loop.whileTrue) out.add('processor');
        walk(s.loop.steps);
      }
      if (s.parallel) {
        out.add('parallel');
        walk(s.parallel.steps);
      }
    }
  };
  model.flows.forEach((f) => walk(f.steps));
  for (const h of [model.before, model.after].filter(Boolean)) {
    out.add('hooks');
    walk(h.steps);
  }
  const has = (pred) => all.some(pred);
  if (has((r) => r.capture?.length || r.match?.length)) out.add('capture');
  const text = JSON.stringify(all.map((r) => [r.url, r.headers, r.json, r.body, r.query, r.form, r.formData]));
  if (text.includes('{{')) out.add('templates');
  if (model.payload?.length) out.add('payload');
  if (Object.keys(model.variables || {}).length) out.add('variables');
  if (has((r) => r.objects)) out.add('objects');
  if (model.http?.defaultCookie || has((r) => r.cookie)) out.add('cookies');
  if (model.expect) out.add('expect');
  if (has((r) => r.auth)) out.add('auth');
  if (has((r) => r.ifTrue)) out.add('ifTrue');
  if (has((r) => r.probability !== undefined)) out.add('probability');
  if (has((r) => r.form)) out.add('form');
  if (has((r) => r.formData)) out.add('formData');
  if (has((r) => r.beforeRequest?.length || r.afterResponse?.length)) out.add('processor');
  if (model.flows.some((f) => f.hooks && Object.values(f.hooks).some((l) => l.length))) out.add('processor');
  if (model.phases.some((p) => p.maxVusers !== undefined)) out.add('maxVusers');
  return [...out];
}

module.exports = { checkModel, featuresOf, requestsOf, requestNames, FEATURES, METHODS };
