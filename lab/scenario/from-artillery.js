'use strict';

const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const mergeWith = require('lodash/mergeWith');
const merge = require('lodash/merge');
const ms = require('ms');
const { labError } = require('../../common/errors');
const { scalePhase } = require('../../artillery/phases');
const { REQUEST_TIMEOUT_S } = require('../../artillery/scenarios');
const { checkModel, featuresOf, METHODS } = require('./model');
const { requestName } = require('./naming');
const { readPayloads } = require('./payload');
const { jsonMapping } = require('./script-flags');
const { artilleryEnsure } = require('./ensure');
const { LIMITS, readBounded, fileProblem } = require('./limits');
const { template } = require('./template');
const { ONLY_ARTILLERY } = require('./artillery-features');

// An Artillery test script (YAML or JSON, the file `artillery run` accepts) as the lab's
// scenario model (./model.js), read once. Two questions, kept apart:
// - Would `artillery run` take it? What Artillery refuses (its own checks: a request
//   without a url, a step of two actions, a phase it cannot read) is refused here with the
//   file, the line and the field; everything else is taken, unknown and future fields
//   included, so `--generator artillery` refuses nothing Artillery runs: it runs the file.
// - What do the lab's engines (fast, closed) send for it? Every HTTP feature of Artillery's
//   engine they run is read into the model with Artillery's semantics (lab/generators/vu/).
//   What they do not run is kept by name: `foreign` (another engine, parallel steps,
//   multipart bodies...) and `unknown` (a field the lab does not know: a typo, or a feature
//   of a later Artillery), and those engines refuse the script naming it, never silently
//   sending something else.
// options: { scale, rateScale } applied to config.phases, as to the catalogue's;
//          environment: Artillery's -e (config.environments.NAME merged into config);
//          overrides: Artillery's --overrides (JSON merged into the script, lists replaced).

function readScript(file, options = {}) {
  const { r, abs, notes } = readFile(file, options);
  const model = buildModel(r, abs, options, notes);
  return checkModel({ ...model, features: featuresOf(model) });
}

// The script as Artillery would run it (--overrides and the environment applied, its config's
// templates rendered): what --generator artillery writes for Artillery.
function prepareScript(file, options = {}) {
  return readFile(file, options).r.js;
}

function readFile(file, options) {
  const abs = path.resolve(file);
  const r = readYaml(abs, '--script');
  // --config FILE: read as the script is, merged over it (Artillery reads its inputs in order
  // and merges each over the last; lines in messages are the script's).
  const config = options.config ? readYaml(path.resolve(options.config), '--config') : null;
  if (config && !isMap(config.js)) config.fail([], 'an Artillery config file is a mapping, like the script');
  const notes = [];
  prepare(r, { ...options, scriptFile: abs, configFile: config ? path.resolve(options.config) : null }, notes, config);
  return { r, abs, notes };
}

function readYaml(abs, flagName) {
  const text = readBounded(abs, LIMITS.scriptBytes, (why) => {
    throw labError('LAB_ERR_USAGE', `${flagName} ${abs}: ${why}`);
  });
  const lines = new YAML.LineCounter();
  // (Not uniqueKeys: Artillery's own YAML reader takes a repeated key, the last one winning.)
  const doc = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: false });
  if (doc.errors.length) {
    const e = doc.errors[0];
    const line = e.linePos?.[0]?.line ?? (e.pos ? lines.linePos(e.pos[0]).line : '?');
    throw labError('LAB_ERR_SCENARIO_FILE', `${abs}:${line}`, e.message.split('\n')[0]);
  }
  return makeReader(doc, lines, abs);
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
    lineOf,
  };
}

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

// What Artillery does to the script before it runs it, in its order (node_modules/artillery/
// lib/util/prepare-test-execution-plan.js and lib/util.js): the --config file merged over it,
// the environment, the payload file of -p, the processor found beside the config file,
// --overrides, --variables, then the templates of its config ({{ $env.X }},
// {{ $processEnvironment.X }}, {{ $environment }}, {{ $dirname }}, --variables' names);
// --scenario-name then keeps the one scenario every virtual user runs. (--dotenv's values are
// the environment's, under it: Artillery loads them with dotenv, which overrides nothing.)
function prepare(r, o, notes, configDoc = null) {
  const { environment = null, overrides = null, payload = null, variables = null, env = null } = o;
  if (!isMap(r.js)) r.fail([], 'an Artillery script is a mapping with config and scenarios');
  if (configDoc) merge(r.js, configDoc.js);
  r.js.config = r.js.config ?? {};
  if (!isMap(r.js.config)) r.fail(['config'], 'a mapping');
  if (environment) {
    const envConfig = r.js.config.environments?.[environment];
    if (envConfig) merge(r.js.config, envConfig);
    else
      notes.push({
        where: 'config.environments',
        note: `environment ${environment} is not defined in the script: run as if none were given (Artillery only warns too)`,
      });
  }
  withPayloadFile(r, payload, o.scriptFile, notes);
  if (o.configFile && typeof r.js.config.processor === 'string') {
    // (Artillery: relative to the config file when it is there, else as before, relative to the script.)
    const beside = path.resolve(path.dirname(o.configFile), r.js.config.processor);
    if (fileProblem(beside) === null) r.js.config.processor = beside;
  }
  if (overrides) {
    const ov = jsonMapping('overrides', overrides);
    mergeWith(r.js, ov, (objVal, srcVal) => (Array.isArray(srcVal) ? srcVal : undefined));
    if (!isMap(r.js.config)) r.fail(['config'], 'a mapping (after --overrides)');
  }
  if (variables)
    r.js.config.variables = { ...(isMap(r.js.config.variables) ? r.js.config.variables : {}), ...variables };
  const processEnv = env ? { ...env, ...process.env } : process.env;
  const vars = {
    $scenarioFile: o.scriptFile,
    $dirname: path.dirname(o.configFile || o.scriptFile || '.'),
    $processEnvironment: processEnv,
    $env: processEnv,
    $environment: environment ?? undefined,
    ...(variables || {}),
  };
  r.js.config = template(r.js.config, { vars, funcs: {} }) ?? {};
  if (o.scenarioName) pickScenario(r, o.scenarioName);
}

// -p FILE for a config.payload mapping: its path when it names none (from the working folder);
// when it names one too, Artillery takes -p's instead (from the script's folder) and warns.
function withPayloadFile(r, payload, scriptFile, notes) {
  const p = r.js.config.payload;
  if (!payload) return;
  if (!isMap(p)) {
    notes.push({
      where: 'config.payload',
      note: `--payload ${payload} is for a config.payload mapping (fields, no path); ${p === undefined ? 'the script has none' : 'the script has a list'}: not used (Artillery does not use it either)`,
    });
    return;
  }
  const from = p.path === undefined ? 'the working folder' : "the script's folder";
  if (p.path === undefined) p.path = path.resolve(payload);
  else {
    notes.push({
      where: 'config.payload.path',
      note: `both --payload and config.payload.path: --payload's file is read (Artillery does the same)`,
    });
    p.path = path.resolve(path.dirname(scriptFile || '.'), payload);
  }
  // (Named as typed: a missing -p file was once "malformed scenario file ...: config.payload.path".)
  let why = null;
  try {
    if (!fs.statSync(p.path).isFile()) why = 'not a file';
  } catch (err) {
    why = err.code === 'ENOENT' ? 'no such file' : `cannot read it (${err.code})`;
  }
  if (why !== null) throw labError('LAB_ERR_USAGE', `--payload ${payload}: ${why} (${p.path}, from ${from})`);
}

// --scenario-name NAME: the scenario named NAME, or the one whose name the regex NAME matches
// (Artillery's test); none, or more than one, is refused as Artillery refuses it.
function pickScenario(r, name) {
  const list = Array.isArray(r.js.scenarios) ? r.js.scenarios : [];
  let re;
  try {
    re = new RegExp(name);
  } catch (err) {
    throw labError('LAB_ERR_USAGE', `--scenario-name ${name}: not a regular expression (${err.message})`);
  }
  const found = list.filter((sc) => isMap(sc) && (sc.name === name || re.test(String(sc.name))));
  const names = list.map((sc) => (isMap(sc) && sc.name !== undefined ? String(sc.name) : '(no name)'));
  if (!found.length)
    throw labError(
      'LAB_ERR_USAGE',
      `--scenario-name ${name}: no scenario of the script has that name (${names.join(', ')})`,
    );
  if (found.length > 1)
    throw labError(
      'LAB_ERR_USAGE',
      `--scenario-name ${name}: ${found.length} scenarios match it (${found.map((sc) => sc.name).join(', ')}); give one name exactly`,
    );
  r.js.scenarios = found;
}

// The script flags of the options (lab/scenario/script-flags.js), as given.
// (Not --dotenv's values: they may be secrets, and stay off the run folder; model.env has them.)
const SCRIPT_OPTIONS = ['environment', 'overrides', 'config', 'payload', 'variables', 'dotenv', 'scenarioName'];
const scriptFlagsOf = (o) => Object.fromEntries(SCRIPT_OPTIONS.filter((k) => o[k] != null).map((k) => [k, o[k]]));

// The fields of each part that the lab's engines know. A field Artillery's HTTP engine
// documents but they do not run is FOREIGN (named feature); a field neither knows is unknown.
const TOP = ['config', 'scenarios', 'before', 'after', 'version', '$schema'];
const CONFIG = {
  known: [
    'target',
    'phases',
    'payload',
    'variables',
    'http',
    'defaults',
    'ensure',
    'plugins',
    'processor',
    'environments',
    'engines',
    'tls',
    // Reporting and packaging only: nothing of them is traffic.
    'statsInterval',
    'includeFiles',
    'bundling',
    'name',
    'description',
    'timeout',
    // Artillery 1's phase mode: the lab spreads arrivals evenly, as Artillery 2 does.
    'mode',
    // The settings of plugins that only report, or that the lab runs.
    'apdex',
    'expect',
    'metrics-by-endpoint',
    'publish-metrics',
  ],
};
const HTTP_CONFIG = ['timeout', 'defaults', 'cookieJarOptions', 'extendedMetrics', 'pool', 'maxSockets'];
const DEFAULTS = ['headers', 'cookie', 'strictCapture', 'think'];
// Plugins that only report (the lab reports for itself) or that the lab's engines run.
const PLUGINS_RUN = ['ensure', 'expect', 'metrics-by-endpoint', 'apdex', 'publish-metrics', 'lab'];
const PHASE_KEYS = ['name', 'duration', 'arrivalRate', 'rampTo', 'arrivalCount', 'pause', 'maxVusers', 'mode'];
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
  // The Playwright engine's: its scenario is a function of the processor (run by Artillery).
  'testFunction',
  'flowFunction',
];
// The engines whose scenarios Artillery checks for a flow (its validate-script.js); another
// engine's (playwright) may have none.
const FLOW_ENGINES = ['http', 'ws', 'socketio'];
const REQUEST_KEYS = [
  'url',
  'uri',
  'name',
  'headers',
  'qs',
  'json',
  'body',
  'form',
  'capture',
  'match',
  'expect',
  'beforeRequest',
  'afterResponse',
  'ifTrue',
  'cookie',
  'auth',
  'gzip',
  'followRedirect',
  'formData',
  'setContentLengthHeader',
  'probability',
];
const FOREIGN_REQUEST = { formData: ONLY_ARTILLERY.formData, setContentLengthHeader: ONLY_ARTILLERY.formData };
const FOREIGN_STEP = {
  parallel: ONLY_ARTILLERY.parallel,
  emit: ONLY_ARTILLERY.socketio,
  send: ONLY_ARTILLERY.ws,
  connect: ONLY_ARTILLERY.ws,
};

function buildModel(r, file, options, notes) {
  const { scale = 1, rateScale = 1, env = null } = options;
  const s = r.js;
  const foreign = [];
  const unknown = [];
  const note = (p, feature) => foreign.push({ feature, where: r.field(p) });
  const odd = (p) => unknown.push({ where: r.field(p), line: r.lineOf(p) });
  // Said once each: what the lab does differently from Artillery, on purpose.
  // (engines: a note on what the lab's own engines do, not said when Artillery runs the file.)
  const say = (where, text, engines = true) => {
    if (!notes.some((n) => n.note === text)) notes.push({ where, note: text, ...(engines ? { engines: true } : {}) });
  };
  const seen = { note, odd, say, processor: s.config?.processor !== undefined };
  for (const k of Object.keys(s)) if (!TOP.includes(k)) odd([k]);
  const config = s.config;
  if (config.target !== undefined && typeof config.target !== 'string') r.fail(['config', 'target'], 'a URL');
  for (const k of Object.keys(config)) if (!CONFIG.known.includes(k)) odd(['config', k]);
  if (config.engines !== undefined) note(['config', 'engines'], ONLY_ARTILLERY.engine);
  // config.tls: Artillery's own TLS options; the one that changes traffic, rejectUnauthorized:
  // false (no certificate checked), is honoured by every generator (lab/run/generation.js).
  if (config.tls !== undefined && !isMap(config.tls)) r.fail(['config', 'tls'], 'a mapping');
  for (const name of Object.keys(config.plugins || {})) {
    if (!PLUGINS_RUN.includes(name)) note(['config', 'plugins', name], `the ${name} plugin (${ONLY_ARTILLERY.plugin})`);
  }
  const http = readHttp(r, config, note, odd);
  const phases = readPhases(r, config.phases, { scale, rateScale });
  const variables = readVariables(r, config.variables);
  const payload = readPayloads(r, config.payload, path.dirname(file), note);
  const processor = typeof config.processor === 'string' ? path.resolve(path.dirname(file), config.processor) : null;
  if (config.processor !== undefined && typeof config.processor !== 'string')
    r.fail(['config', 'processor'], 'the path of a JavaScript file');
  // A processor that is not there fails Artillery's run as it would fail the lab's engines
  // (at their start, once deployed): said now, before anything starts.
  if (processor) {
    const why = fileProblem(processor);
    if (why) r.fail(['config', 'processor'], `${processor}: ${why}`);
  }
  // (The lab's engine threads load a processor with require: CommonJS only.)
  if (processor && /\.(mjs|ts|mts)$/.test(processor)) note(['config', 'processor'], ONLY_ARTILLERY.esmProcessor);
  // Judged as Artillery 2 judges it: config.ensure (or the plugin's own settings) when the
  // ensure plugin is on; without it Artillery 2 does not judge config.ensure, and neither do
  // the lab's engines (said, not silent).
  const ensurePlugin = config.plugins?.ensure !== undefined;
  const ensureSpec = config.ensure ?? (isMap(config.plugins?.ensure) ? config.plugins.ensure : undefined);
  const ensure = ensurePlugin
    ? artilleryEnsure(
        ensureSpec,
        (p, what) => r.fail(['config', ...p], what),
        (p, what) => note(['config', ...p], what),
      )
    : [];
  if (!ensurePlugin && config.ensure !== undefined) {
    notes.push({
      where: 'config.ensure',
      note: 'config.ensure without the ensure plugin (config.plugins.ensure): Artillery 2 does not judge it, nor does the lab; add `plugins: { ensure: {} }` to have it judged',
    });
  }
  const expectPlugin = config.plugins?.expect;
  const expect =
    expectPlugin !== undefined
      ? {
          reportFailuresAsErrors: expectPlugin?.reportFailuresAsErrors === true,
          expectDefault200: expectPlugin?.expectDefault200 === true || expectPlugin?.expectDefault200 === 'true',
        }
      : null;
  if (!Array.isArray(s.scenarios) || !s.scenarios.length) r.fail(['scenarios'], 'a list of one or more scenarios');
  const flows = s.scenarios.map((sc, i) => readScenario(r, sc, ['scenarios', i], seen));
  const hook = (k) => {
    if (s[k] === undefined) return null;
    if (!isMap(s[k]) || !Array.isArray(s[k].flow)) r.fail([k], 'a mapping with a flow');
    if (s[k].engine !== undefined && s[k].engine !== 'http') note([k, 'engine'], `the ${s[k].engine} engine`);
    return { steps: readSteps(r, s[k].flow, [k, 'flow'], seen) };
  };
  return {
    name: path.basename(file),
    // (options: the script flags read with it, for --generator artillery's copy of the file.)
    source: { kind: 'artillery', file, target: config.target ?? null, options: scriptFlagsOf(options) },
    phases,
    variables,
    payload,
    flows,
    before: hook('before'),
    after: hook('after'),
    http,
    processor,
    expect,
    ensure,
    timeoutS: http.timeoutS,
    tls: isMap(config.tls) ? { rejectUnauthorized: config.tls.rejectUnauthorized !== false } : null,
    foreign,
    unknown,
    notes,
    // --dotenv's values: the generator's environment under its own (lab/generators/fast-process.js).
    ...(env ? { env } : {}),
  };
}

// config.http and config.defaults: time-out, default headers and cookie, strict captures,
// the cookie jar's options.
function readHttp(r, config, note, odd) {
  const http = config.http ?? {};
  if (!isMap(http)) r.fail(['config', 'http'], 'a mapping');
  for (const k of Object.keys(http)) if (!HTTP_CONFIG.includes(k)) odd(['config', 'http', k]);
  if (http.pool !== undefined) note(['config', 'http', 'pool'], ONLY_ARTILLERY.pool);
  const defaults = { ...(isMap(config.defaults) ? config.defaults : {}) };
  for (const k of Object.keys(defaults)) if (!DEFAULTS.includes(k)) odd(['config', 'defaults', k]);
  const httpDefaults = isMap(http.defaults) ? http.defaults : {};
  for (const k of Object.keys(httpDefaults)) if (!DEFAULTS.includes(k)) odd(['config', 'http', 'defaults', k]);
  // (A default think of a number does nothing in Artillery: only its jitter does.)
  if (isMap(defaults.think) || isMap(httpDefaults.think)) note(['config', 'defaults', 'think'], ONLY_ARTILLERY.jitter);
  // Artillery reads config.timeout before config.http.timeout, in seconds.
  const raw = config.timeout ?? http.timeout;
  let timeoutS = REQUEST_TIMEOUT_S;
  if (raw !== undefined) {
    timeoutS = Number(raw);
    if (!Number.isFinite(timeoutS) || timeoutS <= 0) r.fail(['config', 'http', 'timeout'], 'seconds above 0');
  }
  const headers = httpDefaults.headers ?? defaults.headers;
  const cookie = httpDefaults.cookie ?? defaults.cookie;
  if (headers !== undefined && !isMap(headers)) r.fail(['config', 'defaults', 'headers'], 'a mapping of headers');
  if (cookie !== undefined && !isMap(cookie)) r.fail(['config', 'defaults', 'cookie'], 'a mapping of cookies');
  return {
    timeoutS,
    // (Artillery's own user agent when the script gives no default headers.)
    defaultHeaders: headers ? lowKeys(headers) : null,
    defaultCookie: cookie ?? null,
    strictCapture: !(httpDefaults.strictCapture === false || defaults.strictCapture === false),
    cookieJarOptions: isMap(http.cookieJarOptions) ? http.cookieJarOptions : {},
  };
}

const lowKeys = (h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

// A duration as Artillery's phases read it: a whole number of seconds (or its text), else a
// duration string by `ms` ("10min", "0.5 min", "9 seconds"). Returns seconds or null.
function duration(v) {
  if (v === undefined || v === null || v === '') return null;
  const n = Number(v);
  if (Number.isInteger(n)) return n;
  const parsed = typeof v === 'string' ? ms(v) : undefined;
  return Number.isFinite(parsed) && parsed > 0 ? parsed / 1000 : null;
}

function readPhases(r, phases, { scale, rateScale }) {
  const p = ['config', 'phases'];
  // No phases: one virtual user, as Artillery runs such a script.
  if (phases === undefined) return [scalePhase({ name: 'one virtual user', duration: 1, arrivalCount: 1 }, 1, 1)];
  if (!Array.isArray(phases) || !phases.length) r.fail(p, 'a list of one or more phases');
  const out = phases.map((ph, i) => {
    const at = [...p, i];
    if (!isMap(ph)) r.fail(at, 'a phase is a mapping (duration and arrivalRate, rampTo, arrivalCount, or pause)');
    for (const k of Object.keys(ph)) if (!PHASE_KEYS.includes(k)) r.fail([...at, k], 'not a field of a phase');
    const seconds = (k) => {
      const s = duration(ph[k]);
      if (s === null || s <= 0) r.fail([...at, k], 'a duration above 0 (seconds, or like 90s, 10min)');
      if (s > LIMITS.planS) r.fail([...at, k], `at most ${LIMITS.planS / 3600} hours (the lab's limit)`);
      return s;
    };
    const num = (k, what) => {
      const v = Number(ph[k]);
      if (!Number.isFinite(v) || v < 0) r.fail([...at, k], what);
      return v;
    };
    const name = ph.name !== undefined ? String(ph.name) : `phase ${i + 1}`;
    const cap = ph.maxVusers !== undefined ? { maxVusers: num('maxVusers', 'a number of virtual users') } : {};
    if (ph.pause !== undefined) return scalePhase({ name, duration: seconds('pause'), pause: true }, scale, rateScale);
    const d = seconds('duration');
    if (ph.arrivalCount !== undefined) {
      const count = num('arrivalCount', 'a whole number of arrivals');
      if ((count * rateScale) / d > LIMITS.arrivalRate)
        r.fail(
          [...at, 'arrivalCount'],
          `at most ${LIMITS.arrivalRate} arrivals a second over the phase (the lab's limit)`,
        );
      return { ...scalePhase({ name, duration: d, arrivalCount: count }, scale, rateScale), ...cap };
    }
    if (ph.arrivalRate === undefined) r.fail(at, 'a phase needs arrivalRate, arrivalCount or pause');
    const rate = (k) => {
      const v = num(k, 'an arrival rate of 0 or more a second');
      if (v * rateScale > LIMITS.arrivalRate)
        r.fail(
          [...at, k],
          `at most ${LIMITS.arrivalRate} arrivals a second (the lab's limit${rateScale !== 1 ? `, with --rate-scale ${rateScale}` : ''})`,
        );
      return v;
    };
    const phase = { name, duration: d, arrivalRate: rate('arrivalRate') };
    if (ph.rampTo !== undefined) phase.rampTo = rate('rampTo');
    // A rate of 0 that is no ramp is a pause, as Artillery runs it.
    if (phase.arrivalRate === 0 && phase.rampTo === undefined)
      return scalePhase({ name, duration: d, pause: true }, scale, rateScale);
    return { ...scalePhase(phase, scale, rateScale), ...cap };
  });
  if (out.reduce((a, ph) => a + ph.duration, 0) > LIMITS.planS)
    r.fail(p, `phases of ${LIMITS.planS / 3600} hours in all at most (the lab's limit)`);
  return out;
}

function readVariables(r, variables) {
  if (variables === undefined) return {};
  if (!isMap(variables)) r.fail(['config', 'variables'], 'a mapping of names to values or lists of values');
  // (A list is drawn from for each virtual user; anything else is its value, a mapping too.)
  return { ...variables };
}

function readScenario(r, sc, at, seen) {
  if (!isMap(sc)) r.fail(at, 'a scenario is a mapping with a flow');
  for (const k of Object.keys(sc)) if (!SCENARIO_KEYS.includes(k)) seen.odd([...at, k]);
  const engine = sc.engine ?? 'http';
  if (engine !== 'http') seen.note([...at, 'engine'], `the ${engine} engine`);
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
  const steps =
    engine === 'http'
      ? [
          ...names('beforeScenario').map((f) => ({ function: f })),
          ...readSteps(r, sc.flow, [...at, 'flow'], seen),
          ...names('afterScenario').map((f) => ({ function: f })),
        ]
      : [];
  if (requestsPerRun(steps) > LIMITS.requestsPerFlow)
    r.fail(
      [...at, 'flow'],
      `a virtual user sends at most ${LIMITS.requestsPerFlow} requests, loops multiplied out (the lab's limit)`,
    );
  return {
    name: sc.name !== undefined ? String(sc.name) : `scenario ${at[1] + 1}`,
    weight: Number(sc.weight ?? 1),
    steps,
    hooks: { beforeRequest: names('beforeRequest'), afterResponse: names('afterResponse'), onError: names('onError') },
  };
}

function readSteps(r, flow, at, seen) {
  const steps = [];
  flow.forEach((step, i) => {
    const here = [...at, i];
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
      for (const k of keys)
        if (!['loop', 'count', 'over', 'whileTrue', 'loopValue', 'loopElement'].includes(k)) seen.odd([...here, k]);
      if (!Array.isArray(value)) r.fail([...here, 'loop'], 'a list of steps');
      const count = step.count ?? null;
      if (count !== null && typeof count !== 'string' && !isNum(count))
        r.fail([...here, 'count'], 'a number, a range like 1-15, or a template');
      if (isNum(count) && count > LIMITS.loopCount)
        r.fail([...here, 'count'], `at most ${LIMITS.loopCount} (the lab's limit)`);
      if (step.over === undefined && count === null && step.whileTrue === undefined)
        seen.note([...here], ONLY_ARTILLERY.endless);
      steps.push({
        loop: {
          count,
          over: step.over ?? null,
          whileTrue: step.whileTrue ?? null,
          loopValue: step.loopValue ?? '$loopCount',
          loopElement: step.loopElement ?? '$loopElement',
          steps: readSteps(r, value, [...here, 'loop'], seen),
        },
      });
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
  });
  return steps;
}

// A think time: seconds, or a duration or template read when it runs. Artillery 2.0.21 reads
// a fractional number of seconds as milliseconds (0.2 waits 1 ms): the lab waits what the
// script says, and says that it differs.
function readThink(r, value, at, seen) {
  if (!isNum(value) && typeof value !== 'string') r.fail(at, 'seconds, or a duration like 500ms');
  if (isNum(value)) {
    if (value < 0) r.fail(at, 'seconds, 0 or more');
    if (value > LIMITS.thinkS) r.fail(at, `at most ${LIMITS.thinkS} s (the lab's limit)`);
    if (!Number.isInteger(value)) {
      seen.say(
        r.field(at),
        `think ${value}: Artillery 2.0.21 reads a fractional number of seconds as milliseconds (it waits about 1 ms); the lab waits ${value} s, as the script says`,
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
  for (const k of ['headers', 'qs', 'cookie', 'auth', 'form']) {
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

// The requests one run of these steps sends, loops multiplied out (a count from a template
// or a list counts once).
const requestsPerRun = (steps) =>
  steps.reduce(
    (a, st) =>
      a + (st.request ? 1 : st.loop ? (isNum(st.loop.count) ? st.loop.count : 1) * requestsPerRun(st.loop.steps) : 0),
    0,
  );

module.exports = { readScript, prepareScript, duration };
