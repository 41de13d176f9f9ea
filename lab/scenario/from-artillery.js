'use strict';

const fs = require('node:fs');
const path = require('node:path');
const YAML = require('yaml');
const mergeWith = require('lodash/mergeWith');
const merge = require('lodash/merge');
const { labError } = require('../../common/errors');
const { checkModel, featuresOf } = require('./model');
const { readPayloads } = require('./payload');
const { jsonMapping } = require('./script-flags');
const { artilleryEnsure } = require('./ensure');
const { LIMITS, readBounded, fileProblem } = require('./limits');
const { template } = require('./template');
const { ONLY_ARTILLERY } = require('./artillery-features');
const { readWsConfig } = require('./artillery-ws');
const { readSocketioConfig, keepUndefinedQuery } = require('./artillery-socketio');
const { isMap, TOP, CONFIG, PLUGINS_RUN } = require('./artillery-fields');
const { readHttp, duration, readPhases, readVariables } = require('./artillery-config');
const { readScenario, readSteps } = require('./artillery-flow');

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
    throw labError('LAB_ERR_FLAG_VALUE', flagName.replace(/^--/, ''), abs, why);
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
  keepUndefinedQuery(r.js.config);
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
  if (why !== null) throw labError('LAB_ERR_FLAG_VALUE', 'payload', payload, `${why} (${p.path}, from ${from})`);
}

// --scenario-name NAME: the scenario named NAME, or the one whose name the regex NAME matches
// (Artillery's test); none, or more than one, is refused as Artillery refuses it.
function pickScenario(r, name) {
  const list = Array.isArray(r.js.scenarios) ? r.js.scenarios : [];
  let re;
  try {
    re = new RegExp(name);
  } catch (err) {
    throw labError('LAB_ERR_FLAG_VALUE', 'scenario-name', name, `not a regular expression (${err.message})`);
  }
  const found = list.filter((sc) => isMap(sc) && (sc.name === name || re.test(String(sc.name))));
  const names = list.map((sc) => (isMap(sc) && sc.name !== undefined ? String(sc.name) : '(no name)'));
  if (!found.length)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'scenario-name',
      name,
      `no scenario of the script has that name (${names.join(', ')})`,
    );
  if (found.length > 1)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'scenario-name',
      name,
      `${found.length} scenarios match it (${found.map((sc) => sc.name).join(', ')}); give one name exactly`,
    );
  r.js.scenarios = found;
}

// The script flags of the options (lab/scenario/script-flags.js), as given.
// (Not --dotenv's values: they may be secrets, and stay off the run folder; model.env has them.)
const SCRIPT_OPTIONS = ['environment', 'overrides', 'config', 'payload', 'variables', 'dotenv', 'scenarioName'];
const scriptFlagsOf = (o) => Object.fromEntries(SCRIPT_OPTIONS.filter((k) => o[k] != null).map((k) => [k, o[k]]));

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
  // (scriptDir: where a formData's fromFile is read, as Artillery reads it.)
  const seen = { note, odd, say, processor: s.config?.processor !== undefined, scriptDir: path.dirname(file) };
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
  // (The lab's engine threads require a processor, import an ES module (.mjs), or compile a
  // TypeScript one (.ts) first, as Artillery loads each: lab/generators/vu/processor.js.)
  if (
    config.bundling !== undefined &&
    (!isMap(config.bundling) || (config.bundling.external !== undefined && !Array.isArray(config.bundling.external)))
  )
    r.fail(['config', 'bundling'], 'a mapping, its external a list of package names');
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
    // (Another engine's section, Playwright's, may have a flowFunction and no flow: Artillery
    // runs it.)
    const engine = isMap(s[k]) ? (s[k].engine ?? 'http') : 'http';
    if (engine !== 'http') {
      note([k, 'engine'], `the ${engine} engine`);
      if (s[k].flow === undefined) return { steps: [] };
    }
    if (!isMap(s[k]) || !Array.isArray(s[k].flow)) r.fail([k], 'a mapping with a flow');
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
    // The ws engine's settings and how long a send waits for its answer (Artillery's default 10 s).
    ...(flows.some((f) => f.engine === 'ws')
      ? {
          ws: {
            ...(readWsConfig(r, config.ws, note) || {}),
            timeoutS: Number(config.timeout ?? config.ws?.timeout ?? 10),
          },
        }
      : {}),
    // The socketio engine's client options and how long an emit waits for its response.
    ...(flows.some((f) => f.engine === 'socketio')
      ? {
          socketio: {
            options: readSocketioConfig(r, config.socketio, ['config', 'socketio']),
            timeoutS: Number(config.timeout ?? 10),
          },
        }
      : {}),
    // (A TypeScript processor's packages left out of its bundle, config.bundling.external.)
    ...(config.bundling?.external?.length ? { bundlingExternal: config.bundling.external.map(String) } : {}),
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

module.exports = { readScript, prepareScript, duration };
