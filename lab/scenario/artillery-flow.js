'use strict';

const ms = require('ms');
const { METHODS } = require('./model');
const { requestName } = require('./naming');
const fs = require('node:fs');
const path = require('node:path');
const { LIMITS, fileProblem } = require('./limits');
const { readWsFlow } = require('./artillery-ws');
const { readSocketioFlow, readSocketioConfig } = require('./artillery-socketio');
const {
  isMap,
  isNum,
  lowKeys,
  SCENARIO_KEYS,
  FLOW_ENGINES,
  REQUEST_KEYS,
  FOREIGN_REQUEST,
  FOREIGN_STEP,
} = require('./artillery-fields');

// An Artillery script's scenarios as the lab's engines run them: each scenario's flow, its
// steps (requests, loops, think times, conditions, captures) read with the script reader's `r`
// (from-artillery.js), whose fail() names the field's line.

// How many of a parallel step's steps run at once: Artillery's engine's default (async's
// parallelLimit of 100), the only one its script check lets through.
const PARALLEL_LIMIT = 100;

function readScenario(r, sc, at, seen) {
  if (!isMap(sc)) r.fail(at, 'a scenario is a mapping with a flow');
  for (const k of Object.keys(sc)) if (!SCENARIO_KEYS.includes(k)) seen.odd([...at, k]);
  const engine = sc.engine ?? 'http';
  // (The ws and socketio engines' flows the lab's engine runs too: ./artillery-ws.js,
  // ./artillery-socketio.js.)
  if (!FLOW_ENGINES.includes(engine)) seen.note([...at, 'engine'], `the ${engine} engine`);
  if (sc.weight !== undefined && !(Number(sc.weight) > 0)) r.fail([...at, 'weight'], 'a number above 0');
  if (
    FLOW_ENGINES.includes(engine)
      ? !Array.isArray(sc.flow) || (!sc.flow.length && engine === 'http')
      : sc.flow !== undefined && !Array.isArray(sc.flow)
  )
    r.fail([...at, 'flow'], 'a list of one or more steps');
  const names = (k) => [].concat(sc[k] ?? []).map(String);
  // Scenario hooks, as Artillery's HTTP engine runs them: before/after the flow as function
  // steps; around every request; on an error.
  const ws = engine === 'ws' ? readWsFlow(r, sc.flow, [...at, 'flow'], seen, { readThink, readLoop }) : null;
  const sio =
    engine === 'socketio'
      ? readSocketioFlow(r, sc.flow, [...at, 'flow'], seen, { readThink, readLoop, readStep })
      : null;
  if (engine !== 'socketio' && sc.socketio !== undefined) seen.odd([...at, 'socketio']);
  // (Artillery's socketio engine runs no scenario hooks: its requests are its HTTP engine's
  // steps, without the scenario around them.)
  if (engine === 'socketio')
    for (const k of ['beforeScenario', 'afterScenario', 'beforeRequest', 'afterResponse', 'onError'])
      if (sc[k] !== undefined)
        seen.say(
          r.field([...at, k]),
          `${k}: Artillery's socketio engine does not run a scenario's hooks, nor does the lab`,
        );
  const steps =
    engine === 'http'
      ? [
          ...names('beforeScenario').map((f) => ({ function: f })),
          ...readSteps(r, sc.flow, [...at, 'flow'], seen),
          ...names('afterScenario').map((f) => ({ function: f })),
        ]
      : (ws?.steps ?? sio ?? []);
  if (requestsPerRun(steps) > LIMITS.requestsPerFlow)
    r.fail(
      [...at, 'flow'],
      `a virtual user sends at most ${LIMITS.requestsPerFlow} requests, loops multiplied out (the lab's limit)`,
    );
  return {
    name: sc.name !== undefined ? String(sc.name) : `scenario ${at[1] + 1}`,
    weight: Number(sc.weight ?? 1),
    steps,
    ...(ws ? { engine: 'ws', connect: ws.connect } : {}),
    ...(sio ? { engine: 'socketio', socketio: readSocketioConfig(r, sc.socketio, [...at, 'socketio']) } : {}),
    hooks: sio
      ? { beforeRequest: [], afterResponse: [], onError: [] }
      : { beforeRequest: names('beforeRequest'), afterResponse: names('afterResponse'), onError: names('onError') },
  };
}

function readSteps(r, flow, at, seen) {
  return flow.flatMap((step, i) => readStep(r, step, [...at, i], seen));
}

// One step of an HTTP flow: [the model's step], or [] for one only Artillery runs.
function readStep(r, step, here, seen) {
  const steps = [];
  if (!isMap(step)) r.fail(here, 'a step is a mapping of one action: get, post, think, loop, function, log...');
  const keys = Object.keys(step);
  if (keys.length !== 1 && !('loop' in step)) {
    r.fail(here, `a step is one action, here ${keys.length ? keys.join(' and ') : 'none'} (as Artillery checks it)`);
  }
  const action = 'loop' in step ? 'loop' : keys[0];
  const value = step[action];
  if (action === 'think') {
    steps.push({ think: readThink(r, value, [...here, 'think'], seen) });
  } else if (action === 'loop') {
    steps.push(readLoop(r, step, here, seen, (inner, where) => readSteps(r, inner, where, seen)));
  } else if (action === 'parallel') {
    // Artillery's: its steps at once (100 at most, its engine's default limit: its script
    // check refuses a `limit` beside them, "must have 1 key"), sharing the virtual user's
    // variables; the flow goes on when all have ended.
    if (!Array.isArray(value) || !value.length) r.fail([...here, 'parallel'], 'a list of one or more steps');
    steps.push({ parallel: { limit: PARALLEL_LIMIT, steps: readSteps(r, value, [...here, 'parallel'], seen) } });
  } else if (action === 'log') {
    steps.push({ log: value });
  } else if (action === 'function') {
    if (typeof value !== 'string') r.fail([...here, 'function'], 'the name of a function of config.processor');
    steps.push({ function: value });
  } else if (METHODS.includes(action.toUpperCase())) {
    steps.push({ request: readRequest(r, action.toUpperCase(), value, [...here, action], seen) });
  } else if (FOREIGN_STEP[action]) {
    seen.note(here, FOREIGN_STEP[action]);
  } else {
    // Artillery's HTTP engine would take it for a request of an unknown method and fail it.
    seen.odd([...here, action]);
  }
  return steps;
}

// A loop step as Artillery's engines read it (the HTTP engine's, the ws engine's): its count
// (a number, a range like 1-15, a template; the lab's limit), over or whileTrue, the names of
// its variables among `keys` (the ws engine has no loopElement), its steps read by
// readInner(steps, where).
const LOOP_KEYS = ['count', 'over', 'whileTrue', 'loopValue', 'loopElement'];
function readLoop(r, step, here, seen, readInner, keys = LOOP_KEYS) {
  for (const k of Object.keys(step)) if (k !== 'loop' && !keys.includes(k)) seen.odd([...here, k]);
  if (!Array.isArray(step.loop)) r.fail([...here, 'loop'], 'a list of steps');
  const count = step.count ?? null;
  if (count !== null && typeof count !== 'string' && !isNum(count))
    r.fail([...here, 'count'], 'a number, a range like 1-15, or a template');
  if (isNum(count) && count > LIMITS.loopCount)
    r.fail([...here, 'count'], `at most ${LIMITS.loopCount} (the lab's limit)`);
  // A loop without end: Artillery's virtual user never ends, nor does its run; the lab's
  // engines end it with the run (lab/generators/vu/control.js), said.
  const endless = step.over === undefined && count === null && step.whileTrue === undefined;
  if (endless)
    seen.say(
      r.field(here),
      "a loop without end (no count, over or whileTrue): Artillery's virtual user never ends, nor does its run; the lab's engines end it at the run's end (its last phase's), neither completed nor failed",
    );
  return {
    loop: {
      ...(endless ? { endless: true } : {}),
      count,
      over: step.over ?? null,
      whileTrue: step.whileTrue ?? null,
      loopValue: step.loopValue ?? '$loopCount',
      loopElement: step.loopElement ?? '$loopElement',
      steps: readInner(step.loop, [...here, 'loop']),
    },
  };
}

// A think time: seconds, or a duration or template read when it runs. Artillery (2.0.21 to
// 2.0.34: createThink) reads a fractional number of seconds as milliseconds (0.2 waits 1 ms):
// the lab waits what the script says, and says that it differs.
function readThink(r, value, at, seen) {
  if (!isNum(value) && typeof value !== 'string') r.fail(at, 'seconds, or a duration like 500ms');
  if (isNum(value)) {
    if (value < 0) r.fail(at, 'seconds, 0 or more');
    if (value > LIMITS.thinkS) r.fail(at, `at most ${LIMITS.thinkS} s (the lab's limit)`);
    if (!Number.isInteger(value)) {
      seen.say(
        r.field(at),
        `think ${value}: Artillery (2.0.21 to 2.0.34) reads a fractional number of seconds as milliseconds (it waits about 1 ms); the lab waits ${value} s, as the script says`,
      );
    }
    return value;
  }
  if (!value.includes('{{')) {
    const s = Number.isInteger(Number(value)) ? Number(value) : ms(value) / 1000;
    if (!Number.isFinite(s) || s < 0) r.fail(at, 'seconds, or a duration like 500ms');
    if (s > LIMITS.thinkS) r.fail(at, `at most ${LIMITS.thinkS} s (the lab's limit)`);
    return s;
  }
  return value;
}

function readRequest(r, method, spec, at, seen) {
  if (typeof spec === 'string') spec = { url: spec };
  if (!isMap(spec)) r.fail(at, 'a request is a mapping with a url');
  // A field of its own, with a processor: its hooks may read it (Artillery hands them every
  // field of the request), so it goes to them, said; without one it is unknown.
  const extra = {};
  for (const k of Object.keys(spec)) {
    if (!REQUEST_KEYS.includes(k)) {
      if (seen.processor) {
        extra[k] = spec[k];
        seen.say(
          r.field([...at, k]),
          "not a field the lab knows: handed to the processor's hooks, as Artillery does",
          false,
        );
      } else seen.odd([...at, k]);
    }
    if (FOREIGN_REQUEST[k]) seen.note([...at, k], FOREIGN_REQUEST[k]);
  }
  const url = spec.url ?? spec.uri;
  if (typeof url !== 'string' || !url) r.fail([...at, 'url'], 'a path like /api/items (Artillery requires a url)');
  for (const k of ['headers', 'qs', 'cookie', 'auth', 'form', 'formData']) {
    if (spec[k] !== undefined && !isMap(spec[k])) r.fail([...at, k], 'a mapping');
  }
  const list = (v, k) => {
    if (v === undefined) return [];
    const l = Array.isArray(v) ? v : [v];
    l.forEach((c, i) => {
      if (!isMap(c)) r.fail([...at, k, ...(Array.isArray(v) ? [i] : [])], 'a mapping');
    });
    return l;
  };
  const capture = list(spec.capture, 'capture');
  capture.forEach((c, i) => {
    if (typeof c.as !== 'string')
      r.fail(
        [...at, 'capture', ...(Array.isArray(spec.capture) ? [i] : [])],
        'a capture names the variable it sets (as:)',
      );
  });
  const match = list(spec.match, 'match');
  const hooks = (k) => [].concat(spec[k] ?? []).map(String);
  return {
    name: requestName({ name: spec.name, method, url }),
    nameGiven: spec.name !== undefined,
    method,
    url,
    headers: lowKeys(spec.headers || {}),
    ...(spec.qs ? { query: spec.qs } : {}),
    ...(spec.json !== undefined ? { json: spec.json } : spec.body !== undefined ? { body: spec.body } : {}),
    ...(spec.form ? { form: spec.form } : {}),
    ...(spec.formData ? { formData: readFormData(r, spec.formData, [...at, 'formData'], seen.scriptDir) } : {}),
    capture,
    match,
    ...(spec.expect !== undefined ? { expect: spec.expect } : {}),
    ...(spec.cookie ? { cookie: spec.cookie } : {}),
    ...(spec.auth ? { auth: { user: spec.auth.user, pass: spec.auth.pass } } : {}),
    ...(spec.followRedirect !== undefined ? { followRedirect: spec.followRedirect !== false } : {}),
    ...(spec.gzip !== undefined ? { gzip: spec.gzip !== false } : {}),
    ...(spec.ifTrue !== undefined ? { ifTrue: String(spec.ifTrue) } : {}),
    // (Artillery's: Number(p) || 0, at most 100; the request is sent when an integer drawn
    // from 0 to 100 inclusive is under it, so 100 still skips 1 in 101, as there.)
    ...(spec.probability !== undefined ? { probability: Math.min(100, Number(spec.probability) || 0) } : {}),
    ...(spec.beforeRequest !== undefined ? { beforeRequest: hooks('beforeRequest') } : {}),
    ...(spec.afterResponse !== undefined ? { afterResponse: hooks('afterResponse') } : {}),
    ...(Object.keys(extra).length ? { extra } : {}),
  };
}

// A formData mapping as Artillery's engine appends it: a value (text or number), or
// { value | fromFile, contentType }; a list is refused as the form-data library refuses it. A
// file named without a template is checked now (from the script's folder), before anything
// starts; one read at run time fails its virtual users if it cannot be read.
function readFormData(r, formData, at, scriptDir) {
  for (const [k, v] of Object.entries(formData)) {
    if (Array.isArray(v) || v === null || typeof v === 'boolean')
      r.fail([...at, k], 'a value, or a mapping with value or fromFile (and contentType)');
    if (isMap(v) && v.value === undefined && v.fromFile === undefined)
      r.fail([...at, k], 'a mapping with value or fromFile (and contentType)');
    if (isMap(v) && v.fromFile !== undefined && typeof v.fromFile !== 'string')
      r.fail([...at, k, 'fromFile'], "a file's path, from the script's folder");
    if (isMap(v) && typeof v.fromFile === 'string' && !v.fromFile.includes('{{') && scriptDir) {
      const file = path.resolve(scriptDir, v.fromFile);
      const why = fileProblem(file);
      if (why) r.fail([...at, k, 'fromFile'], `${file}: ${why}`);
      if (fs.statSync(file).size > LIMITS.formFileBytes)
        r.fail([...at, k, 'fromFile'], `${file}: more than ${LIMITS.formFileBytes / 2 ** 20} MiB (the lab's limit)`);
    }
  }
  return formData;
}

// The requests one run of these steps sends, loops multiplied out (a count from a template
// or a list counts once).
const requestsPerRun = (steps) =>
  steps.reduce(
    (a, st) =>
      a +
      (st.request
        ? 1
        : st.loop
          ? (isNum(st.loop.count) ? st.loop.count : 1) * requestsPerRun(st.loop.steps)
          : st.parallel
            ? requestsPerRun(st.parallel.steps)
            : st.sio
              ? 1
              : 0),
    0,
  );

module.exports = { readScenario, readSteps, readThink, readRequest, requestsPerRun };
