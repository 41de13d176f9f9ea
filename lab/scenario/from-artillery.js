'use strict';

const path = require('node:path');
const YAML = require('yaml');
const { labError } = require('../../common/errors');
const parseDuration = require('../cli/duration');
const { scalePhase } = require('../../artillery/phases');
const { REQUEST_TIMEOUT_S } = require('../../artillery/scenarios');
const { checkModel, featuresOf, METHODS } = require('./model');
const { requestName } = require('./naming');
const { parsePath } = require('./capture');
const { parseCsv } = require('./payload');
const { namesIn, FUNCTIONS } = require('./template');
const { artilleryEnsure } = require('./ensure');
const { LIMITS, readBounded } = require('./limits');

// An Artillery test script (YAML or JSON, the file `artillery run` accepts) as the lab's
// scenario model (./model.js). Read once: a script that does not parse, or whose field is
// not what Artillery takes, is refused with the file, the line and the field. What Artillery
// runs but the lab's own engines do not (a function step, a Socket.IO scenario, a regexp
// capture...) is kept in `foreign`, named, so that a generator that cannot run it refuses it
// by name before anything starts (lab/generators/), and --generator artillery runs the file
// as Artillery itself would.

// options: { scale, rateScale } applied to config.phases, as to the catalogue's.
function readScript(file, options = {}) {
  const abs = path.resolve(file);
  const text = readBounded(abs, LIMITS.scriptBytes, (why) => {
    throw labError('LAB_ERR_USAGE', `--script ${file}: ${why}`);
  });
  const lines = new YAML.LineCounter();
  const doc = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line ?? (e.pos ? lines.linePos(e.pos[0]).line : '?');
    throw labError('LAB_ERR_SCENARIO_FILE', `${abs}:${line}`, e.message.split('\n')[0]);
  }
  const reader = makeReader(doc, lines, abs);
  const model = buildModel(reader, abs, options);
  return checkModel({ ...model, features: featuresOf(model) });
}

// Where each field is in the file, for messages: fail(path, what) throws with its line.
function makeReader(doc, lines, file) {
  const lineOf = (p) => {
    for (let i = p.length; i >= 0; i--) {
      const node = p.length ? doc.getIn(p.slice(0, i), true) : doc.contents;
      if (node && node.range) return lines.linePos(node.range[0]).line;
    }
    return 1;
  };
  const field = (p) =>
    p.reduce((a, k) => (typeof k === 'number' ? `${a}[${k}]` : a ? `${a}.${k}` : String(k)), '') || '(top)';
  let js;
  try {
    // (An alias bomb: a few lines whose aliases expand to billions of nodes.)
    js = doc.toJS({ maxAliasCount: LIMITS.aliases });
  } catch (err) {
    throw labError('LAB_ERR_SCENARIO_FILE', file, `its YAML aliases expand too far (${err.message.split('\n')[0]})`);
  }
  return {
    js,
    fail(p, what) {
      throw labError('LAB_ERR_SCENARIO_FILE', `${file}:${lineOf(p)}`, `${field(p)}: ${what}`);
    },
    field,
  };
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

// What the lab's engines run of Artillery's script; everything else is foreign (named) or,
// when Artillery has no such field either, an error.
const PHASE_KEYS = ['name', 'duration', 'arrivalRate', 'rampTo', 'arrivalCount', 'pause', 'maxVusers'];
const SCENARIO_KEYS = [
  'name',
  'weight',
  'flow',
  'engine',
  'beforeScenario',
  'afterScenario',
  'beforeRequest',
  'afterResponse',
  'onError',
];
const REQUEST_KEYS = [
  'url',
  'name',
  'headers',
  'qs',
  'json',
  'body',
  'capture',
  'form',
  'formData',
  'expect',
  'match',
  'beforeRequest',
  'afterResponse',
  'ifTrue',
  'cookie',
  'auth',
  'gzip',
  'followRedirect',
];
const FOREIGN_REQUEST = {
  form: 'form bodies',
  formData: 'multipart bodies',
  expect: 'expectations (the expect plugin)',
  match: 'match checks',
  beforeRequest: 'request hooks (processor functions)',
  afterResponse: 'request hooks (processor functions)',
  ifTrue: 'conditional requests (ifTrue)',
  cookie: 'cookies',
  auth: 'basic auth',
  gzip: 'gzip',
  followRedirect: 'redirect settings',
};
const FOREIGN_STEP = {
  function: 'function steps (processor functions)',
  log: 'log steps',
  parallel: 'parallel steps',
  emit: 'Socket.IO emit steps',
  send: 'WebSocket send steps',
  connect: 'WebSocket connect steps',
};

function buildModel(r, file, { scale = 1, rateScale = 1 } = {}) {
  const s = r.js;
  if (!isMap(s)) r.fail([], 'an Artillery script is a mapping with config and scenarios');
  for (const k of Object.keys(s))
    if (!['config', 'scenarios', 'before', 'after'].includes(k)) r.fail([k], 'not a field of an Artillery script');
  const foreign = [];
  const note = (p, feature) => foreign.push({ feature, where: r.field(p) });
  if (s.before) note(['before'], 'before sections');
  if (s.after) note(['after'], 'after sections');
  const config = s.config ?? {};
  if (!isMap(config)) r.fail(['config'], 'a mapping');
  if (config.target !== undefined && typeof config.target !== 'string') r.fail(['config', 'target'], 'a URL');
  if (config.processor !== undefined) note(['config', 'processor'], 'a processor (custom JavaScript)');
  if (config.engines !== undefined) note(['config', 'engines'], 'engines other than HTTP');
  if (config.environments !== undefined) note(['config', 'environments'], 'environments (--environment)');
  for (const name of Object.keys(config.plugins || {})) {
    if (!['ensure', 'metrics-by-endpoint'].includes(name)) note(['config', 'plugins', name], `the ${name} plugin`);
  }
  const phases = readPhases(r, config.phases, { scale, rateScale });
  const variables = readVariables(r, config.variables, note);
  const payload = readPayload(r, config.payload, path.dirname(file), note);
  const timeoutS = readTimeout(r, config.http);
  const ensure = artilleryEnsure(config.ensure ?? config.plugins?.ensure, (p, what) => r.fail(['config', ...p], what));
  if (!Array.isArray(s.scenarios) || !s.scenarios.length) r.fail(['scenarios'], 'a list of one or more scenarios');
  const flows = s.scenarios.map((sc, i) => readScenario(r, sc, ['scenarios', i], note));
  return {
    name: path.basename(file),
    source: { kind: 'artillery', file, target: config.target ?? null },
    phases,
    variables,
    payload,
    flows,
    ensure,
    timeoutS,
    foreign,
  };
}

function readPhases(r, phases, { scale, rateScale }) {
  const p = ['config', 'phases'];
  if (!Array.isArray(phases) || !phases.length) r.fail(p, 'a list of one or more phases');
  const out = phases.map((ph, i) => {
    const at = [...p, i];
    if (!isMap(ph)) r.fail(at, 'a phase is a mapping (duration and arrivalRate, rampTo, arrivalCount, or pause)');
    for (const k of Object.keys(ph)) if (!PHASE_KEYS.includes(k)) r.fail([...at, k], 'not a field of a phase');
    if (ph.maxVusers !== undefined)
      r.fail(
        [...at, 'maxVusers'],
        'a cap on virtual users, which the lab does not apply (its open loops never cap arrivals)',
      );
    const seconds = (k) => {
      const v = ph[k];
      if (isNum(v) && v > LIMITS.planS) r.fail([...at, k], `at most ${LIMITS.planS / 3600} hours (the lab's limit)`);
      if (isNum(v) && v > 0) return v;
      try {
        return parseDuration(String(v), k);
      } catch {
        return r.fail([...at, k], 'a duration above 0 (seconds, or like 90s, 10m)');
      }
    };
    const name = ph.name !== undefined ? String(ph.name) : `phase ${i + 1}`;
    if (ph.pause !== undefined) return scalePhase({ name, duration: seconds('pause'), pause: true }, scale, rateScale);
    const duration = seconds('duration');
    const rate = (k) => {
      if (!isNum(ph[k]) || ph[k] < 0) r.fail([...at, k], 'an arrival rate of 0 or more a second');
      if (ph[k] * rateScale > LIMITS.arrivalRate)
        r.fail(
          [...at, k],
          `at most ${LIMITS.arrivalRate} arrivals a second (the lab's limit${rateScale !== 1 ? `, with --rate-scale ${rateScale}` : ''})`,
        );
      return ph[k];
    };
    if (ph.arrivalCount !== undefined) {
      if (!Number.isInteger(ph.arrivalCount) || ph.arrivalCount < 0)
        r.fail([...at, 'arrivalCount'], 'a whole number of arrivals');
      if ((ph.arrivalCount * rateScale) / duration > LIMITS.arrivalRate)
        r.fail(
          [...at, 'arrivalCount'],
          `at most ${LIMITS.arrivalRate} arrivals a second over the phase (the lab's limit)`,
        );
      return scalePhase({ name, duration, arrivalCount: ph.arrivalCount }, scale, rateScale);
    }
    if (ph.arrivalRate === undefined) r.fail(at, 'a phase needs arrivalRate, arrivalCount or pause');
    const phase = { name, duration, arrivalRate: rate('arrivalRate') };
    if (ph.rampTo !== undefined) phase.rampTo = rate('rampTo');
    return scalePhase(phase, scale, rateScale);
  });
  if (out.reduce((a, ph) => a + ph.duration, 0) > LIMITS.planS)
    r.fail(p, `phases of ${LIMITS.planS / 3600} hours in all at most (the lab's limit)`);
  return out;
}

function readVariables(r, variables, note) {
  if (variables === undefined) return {};
  if (!isMap(variables)) r.fail(['config', 'variables'], 'a mapping of names to values or lists of values');
  const out = {};
  for (const [k, v] of Object.entries(variables)) {
    if (isMap(v)) note(['config', 'variables', k], 'variables that are mappings');
    out[k] = v;
  }
  return out;
}

function readPayload(r, payload, dir, note) {
  if (payload === undefined) return [];
  const list = Array.isArray(payload) ? payload : [payload];
  return list.map((p, i) => {
    const at = Array.isArray(payload) ? ['config', 'payload', i] : ['config', 'payload'];
    if (!isMap(p) || typeof p.path !== 'string') r.fail(at, 'a payload has a path to its CSV file');
    if (p.loadAll || p.name) note(at, 'payloads loaded whole (loadAll, name)');
    if (!Array.isArray(p.fields) || !p.fields.length || p.fields.some((f) => typeof f !== 'string')) {
      r.fail([...at, 'fields'], 'a list of the names of its columns');
    }
    if (p.order !== undefined && !['random', 'sequence'].includes(p.order))
      r.fail([...at, 'order'], 'random or sequence');
    const file = path.resolve(dir, p.path);
    const text = readBounded(file, LIMITS.payloadBytes, (why) => r.fail([...at, 'path'], `${file}: ${why}`));
    const rows = parseCsv(text, p.delimiter || ',').slice(p.skipHeader ? 1 : 0);
    if (!rows.length) r.fail([...at, 'path'], `${file} has no rows`);
    return { file, fields: p.fields, order: p.order || 'random', skipHeader: Boolean(p.skipHeader), rows };
  });
}

function readTimeout(r, http) {
  if (http === undefined || http.timeout === undefined) return REQUEST_TIMEOUT_S;
  if (!isNum(http.timeout) || http.timeout <= 0) r.fail(['config', 'http', 'timeout'], 'seconds above 0');
  return http.timeout;
}

function readScenario(r, sc, at, note) {
  if (!isMap(sc)) r.fail(at, 'a scenario is a mapping with a flow');
  for (const k of Object.keys(sc)) if (!SCENARIO_KEYS.includes(k)) r.fail([...at, k], 'not a field of a scenario');
  if (sc.engine !== undefined && sc.engine !== 'http') note([...at, 'engine'], `the ${sc.engine} engine`);
  for (const k of ['beforeScenario', 'afterScenario', 'beforeRequest', 'afterResponse', 'onError']) {
    if (sc[k] !== undefined) note([...at, k], 'scenario hooks (processor functions)');
  }
  if (sc.weight !== undefined && (!isNum(sc.weight) || sc.weight <= 0)) r.fail([...at, 'weight'], 'a number above 0');
  if (!Array.isArray(sc.flow) || !sc.flow.length) r.fail([...at, 'flow'], 'a list of one or more steps');
  const steps = readSteps(r, sc.flow, [...at, 'flow'], note);
  if (requestsPerRun(steps) > LIMITS.requestsPerFlow)
    r.fail(
      [...at, 'flow'],
      `a virtual user sends at most ${LIMITS.requestsPerFlow} requests, loops multiplied out (the lab's limit)`,
    );
  return { name: sc.name !== undefined ? String(sc.name) : `scenario ${at[1] + 1}`, weight: sc.weight ?? 1, steps };
}

function readSteps(r, flow, at, note) {
  const steps = [];
  flow.forEach((step, i) => {
    const here = [...at, i];
    if (!isMap(step) || (Object.keys(step).length !== 1 && !('loop' in step))) {
      r.fail(here, 'a step is one action: get, post, put, patch, delete, head, options, think or loop');
    }
    const [action] = Object.keys(step);
    const value = step[action];
    if (action === 'think') {
      if (!isNum(value) && typeof value !== 'string') r.fail([...here, 'think'], 'seconds');
      const s = isNum(value) ? value : Number(String(value).replace(/s$/, ''));
      if (!Number.isFinite(s) || s < 0) r.fail([...here, 'think'], 'seconds, 0 or more');
      if (s > LIMITS.thinkS) r.fail([...here, 'think'], `at most ${LIMITS.thinkS} s (the lab's limit)`);
      steps.push({ think: s });
    } else if (action === 'loop') {
      const extra = Object.keys(step).filter((k) => !['loop', 'count', 'over', 'whileTrue'].includes(k));
      if (extra.length) r.fail([...here, extra[0]], 'not a field of a loop');
      if (step.over !== undefined) note([...here, 'over'], 'loops over a list (over)');
      if (step.whileTrue !== undefined) note([...here, 'whileTrue'], 'loops while a function says (whileTrue)');
      const count = step.count ?? 1;
      if (!Number.isInteger(count) || count < 1) r.fail([...here, 'count'], 'a whole number of 1 or more');
      if (count > LIMITS.loopCount) r.fail([...here, 'count'], `at most ${LIMITS.loopCount} (the lab's limit)`);
      if (!Array.isArray(value) || !value.length) r.fail([...here, 'loop'], 'a list of steps');
      steps.push({ loop: { count, steps: readSteps(r, value, [...here, 'loop'], note) } });
    } else if (METHODS.includes(action.toUpperCase())) {
      steps.push({ request: readRequest(r, action.toUpperCase(), value, [...here, action], note) });
    } else if (FOREIGN_STEP[action]) {
      // Named, not run: a generator that cannot run it refuses the script (lab/generators/).
      note(here, FOREIGN_STEP[action]);
    } else {
      r.fail(
        [...here, action],
        'not a step Artillery takes (get, post, put, patch, delete, head, options, think, loop, function...)',
      );
    }
  });
  return steps;
}

function readRequest(r, method, spec, at, note) {
  if (typeof spec === 'string') spec = { url: spec };
  if (!isMap(spec)) r.fail(at, 'a request is a mapping with a url');
  for (const k of Object.keys(spec)) {
    if (!REQUEST_KEYS.includes(k)) r.fail([...at, k], 'not a field of a request');
    if (FOREIGN_REQUEST[k]) note([...at, k], FOREIGN_REQUEST[k]);
  }
  if (typeof spec.url !== 'string' || !spec.url) r.fail([...at, 'url'], 'a path like /api/items');
  if (/^https?:\/\//.test(spec.url)) note([...at, 'url'], 'absolute URLs (another host than the target)');
  if (spec.headers !== undefined && !isMap(spec.headers))
    r.fail([...at, 'headers'], 'a mapping of header names to values');
  if (spec.qs !== undefined && !isMap(spec.qs)) r.fail([...at, 'qs'], 'a mapping of query names to values');
  if (spec.json !== undefined && spec.body !== undefined)
    r.fail([...at, 'body'], 'a request has json or body, not both');
  if (spec.body !== undefined && typeof spec.body !== 'string')
    r.fail([...at, 'body'], 'a string (json: takes a structure)');
  for (const t of [spec.url, JSON.stringify(spec.headers ?? ''), JSON.stringify(spec.json ?? ''), spec.body ?? '']) {
    for (const n of namesIn(t)) {
      if (n.startsWith('$') && !FUNCTIONS[n.slice(1)]) note([...at, 'url'], `the template function ${n}()`);
    }
  }
  const capture = readCaptures(r, spec.capture, [...at, 'capture'], note);
  return {
    name: requestName({ name: spec.name, method, url: spec.url }),
    nameGiven: spec.name !== undefined,
    method,
    url: spec.url,
    headers: Object.fromEntries(Object.entries(spec.headers || {}).map(([k, v]) => [k.toLowerCase(), String(v)])),
    ...(spec.qs ? { query: spec.qs } : {}),
    ...(spec.json !== undefined ? { json: spec.json } : {}),
    ...(spec.body !== undefined ? { body: spec.body } : {}),
    capture,
  };
}

function readCaptures(r, capture, at, note) {
  if (capture === undefined) return [];
  const list = Array.isArray(capture) ? capture : [capture];
  const out = [];
  list.forEach((c, i) => {
    const here = Array.isArray(capture) ? [...at, i] : at;
    if (!isMap(c) || typeof c.as !== 'string') r.fail(here, 'a capture names the variable it sets (as:)');
    const kind = ['json', 'regexp', 'header', 'xpath', 'selector'].find((k) => c[k] !== undefined);
    if (!kind)
      r.fail(
        here,
        'a capture says what it reads: json (the lab also knows regexp, header, xpath and selector by name)',
      );
    if (kind !== 'json') {
      note(here, `${kind} captures`);
      return;
    }
    const keys = parsePath(c.json);
    if (!keys) {
      note([...here, 'json'], `JSONPath beyond a plain path ("${c.json}")`);
      return;
    }
    out.push({ json: c.json, keys, as: c.as });
  });
  return out;
}

// The requests one run of these steps sends, loops multiplied out.
const requestsPerRun = (steps) =>
  steps.reduce((a, st) => a + (st.request ? 1 : st.loop ? st.loop.count * requestsPerRun(st.loop.steps) : 0), 0);

module.exports = { readScript };
