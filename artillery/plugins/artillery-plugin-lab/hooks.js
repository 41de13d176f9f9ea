'use strict';

// The lab's hooks in a worker's copy of the script: added to every scenario beside the
// script's own (as Artillery's metrics-by-endpoint plugin adds its own), as functions of
// the script's processor. Counters per wall-clock second (Artillery reports every 10 s, too
// coarse for a 15 s spike) and per request name; each second's and each name's answer times
// in histograms of their own, which Artillery summarizes like any metric: percentiles come
// from a window's own histogram, never from averaging.
//   lab.arrivals.SEC  virtual users started      lab.sent.SEC      requests sent
//   lab.responses.SEC answers                    lab.rt.SEC        answer times (histogram)
//   lab.up.SEC.ADDR   answers by replica (X-Lab-Upstream)
//   lab.rq.NAME.sent / .codes.CODE / .errors.CODE, and lab.rq.NAME.rt (histogram)
// A request's name is its `name:`, else METHOD and its URL as written: templates
// unexpanded, so a step is one name whatever its values (lab/scenario/naming.js).
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];
const second = () => Math.floor(Date.now() / 1000);

function nameSteps(flow) {
  for (const step of flow || []) {
    if (step && Array.isArray(step.loop)) nameSteps(step.loop);
    for (const m of METHODS) {
      const spec = step && step[m];
      if (spec && typeof spec === 'object' && spec.name === undefined) spec.name = `${m.toUpperCase()} ${spec.url}`;
    }
  }
}

const hooks = {
  labArrival(context, events, done) {
    events.emit('counter', `lab.arrivals.${second()}`, 1);
    return done();
  },
  labSent(req, context, events, done) {
    // The name as written: Artillery renders templates in it before the answer comes.
    req.labName = req.name;
    events.emit('counter', `lab.sent.${second()}`, 1);
    events.emit('counter', `lab.rq.${req.labName}.sent`, 1);
    return done();
  },
  labResponse(req, res, context, events, done) {
    const s = second();
    events.emit('counter', `lab.responses.${s}`, 1);
    const t = res.timings && res.timings.phases;
    const name = req.labName ?? req.name;
    events.emit('counter', `lab.rq.${name}.codes.${res.statusCode}`, 1);
    if (t && typeof t.firstByte === 'number') {
      events.emit('histogram', `lab.rt.${s}`, t.firstByte);
      events.emit('histogram', `lab.rq.${name}.rt`, t.firstByte);
    }
    // Which replica answered, as the entry named it (X-Lab-Upstream, lab/kinds/).
    const up = res.headers && res.headers['x-lab-upstream'];
    if (up) events.emit('counter', `lab.up.${s}.${up}`, 1);
    return done();
  },
  labError(err, req, context, events, done) {
    events.emit('counter', `lab.rq.${req.labName ?? req.name}.errors.${err.code || err.name}`, 1);
    return done();
  },
};

const ADD = {
  beforeScenario: 'labArrival',
  beforeRequest: 'labSent',
  afterResponse: 'labResponse',
  onError: 'labError',
};

// A scenario of another engine that runs a function of the processor (Playwright's
// testFunction or flowFunction) has no beforeScenario hook: its virtual users are counted as
// they start by a function of the lab's in front of the script's own, looked up when called.
// (A browser run once said "Scenarios launched: 2" beside "achieved 0 (0%)" for its phase.)
const BROWSER_FUNCTIONS = ['testFunction', 'flowFunction'];
function countArrivals(processor, scenario) {
  for (const key of BROWSER_FUNCTIONS) {
    const own = scenario[key];
    if (typeof own !== 'string') continue;
    const name = `labArrivalThen_${own}`;
    processor[name] = function labArrivalThen(...args) {
      const events = args[2];
      if (events && typeof events.emit === 'function') events.emit('counter', `lab.arrivals.${second()}`, 1);
      return processor[own].apply(this, args);
    };
    scenario[key] = name;
  }
}

function addHooks(script) {
  if (!script.config.processor || typeof script.config.processor !== 'object') script.config.processor = {};
  Object.assign(script.config.processor, hooks);
  for (const scenario of script.scenarios || []) {
    countArrivals(script.config.processor, scenario);
    nameSteps(scenario.flow);
    for (const [hook, fn] of Object.entries(ADD)) scenario[hook] = [].concat(scenario[hook] || [], fn);
  }
}

module.exports = { addHooks, nameSteps };
