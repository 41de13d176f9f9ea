'use strict';

// What a scenario run sends, from its command line (npm run scenario): its words (<endpoint>
// <scenario> <deployment>, or --script), the methods (the request's and the balancer's), and
// the scenario model (lab/scenario/model.js) of a script or of the lab's catalogue, or the
// signal endpoint's stages of participants. Each refusal is the command line's, with its code.

const path = require('node:path');
const {
  ENDPOINTS,
  SCENARIOS,
  SIGNAL,
  REQUEST_TIMEOUT_S,
  endpointOf,
  isPath,
  pathOf,
} = require('../../artillery/scenarios');
const { signalStages } = require('../../artillery/stages');
const { scalePhase } = require('../../artillery/phases');
const { METHOD_NAMES } = require('../topology/deployments');
const { pick } = require('../names');
const { labError } = require('../../common/errors');
const { requestOf, parseMethod, METHODS } = require('./request');
const { catalogueModel } = require('./catalogue');
const { readScript } = require('./from-artillery');
const { scriptOptionsOf } = require('./script-flags');
const { checkModel } = require('./model');

// --method: an HTTP method (GET, POST, ...) for the request, or the balancer's (round-robin,
// least_conn, hash). -> { http } or { balancer }.
function parseEitherMethod(raw) {
  if (METHOD_NAMES.includes(raw)) return { balancer: raw };
  try {
    return { http: parseMethod(raw) };
  } catch {
    throw labError(
      'LAB_ERR_USAGE',
      `--method ${raw}: the request's (${METHODS.join(', ')}) or the balancer's (${METHOD_NAMES.join(', ')})`,
    );
  }
}
function methodsOf(values) {
  const list = values.method || [];
  const http = list.filter((m) => m.http).map((m) => m.http);
  const balancer = list.filter((m) => m.balancer).map((m) => m.balancer);
  if (http.length > 1 || balancer.length > 1)
    throw labError('LAB_ERR_USAGE', '--method: one for the request and one for the balancer at most');
  return { http: http[0], balancer: balancer[0] };
}

// A refusal of the command line, with the code of its situation (common/errors.js).
const refuse = (code, ...details) => {
  throw labError(code, ...details);
};

// The words of the command line: <endpoint> <scenario> <deployment>, or with --script the
// deployment alone; with --target the deployment is not needed, and a --target with a path
// stands for the endpoint (the path is kept, never dropped: a run once measured /ping when
// told /api/items). usageText: the command's usage, said with a missing word.
function wordsOf(positionals, values, usageText) {
  const usage = (text) => labError('LAB_ERR_MISSING_ARG', text, usageText);
  const target = values.target ? new URL(values.target) : null;
  const targetPath = target && (target.pathname !== '/' || target.search) ? `${target.pathname}${target.search}` : null;
  if (values.script) {
    if (positionals.length > (target ? 0 : 1) || (!target && positionals.length !== 1)) {
      throw usage(
        `${target ? 'no other word' : 'the deployment alone'} with --script: npm run scenario -- --script FILE ${target ? '--target URL' : '<deployment>'}`,
      );
    }
    if (targetPath)
      refuse(
        'LAB_ERR_FLAG_VALUE',
        'target',
        values.target,
        "the script's requests name their own paths; give the target's origin",
      );
    return { endpoint: path.basename(values.script), scenario: 'script', deploymentName: positionals[0] ?? null };
  }
  if (!target) {
    if (positionals.length !== 3) throw usage('<endpoint> <scenario> <deployment>');
    const [endpoint, scenario, deploymentName] = positionals;
    return { endpoint, scenario, deploymentName };
  }
  let [endpoint, scenario, deploymentName = null] = positionals;
  if (positionals.length <= 1) {
    if (!targetPath || !positionals.length)
      throw usage('<endpoint> <scenario> (or a --target URL whose path is the endpoint)');
    [scenario, endpoint] = [positionals[0], targetPath];
  }
  const asked = targetPath && endpointOf(endpoint)?.path;
  if (targetPath && asked !== undefined && asked !== targetPath) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'target',
      values.target,
      `it names the path ${targetPath}, and the endpoint ${endpoint} asks ${asked}: give the path once (npm run scenario -- ${scenario} --target ${values.target})`,
    );
  }
  return { endpoint, scenario, deploymentName };
}

// --rate N: the model with one constant phase of N arrivals a second instead of its own.
function atRate(model, values) {
  if (values.phases !== undefined) return withPhases(model, values);
  if (values.rate === undefined) return model;
  if (values['rate-scale'] !== undefined)
    refuse('LAB_ERR_FLAGS_EXCLUDE', 'rate', 'rate-scale', '--rate sets the arrival rate itself: drop --rate-scale');
  const durationS = (values.duration ?? 60) * (values.scale ?? 1);
  const phase = scalePhase({ name: `constant ${values.rate}/s`, duration: durationS, arrivalRate: values.rate });
  return checkModel({ ...model, phases: [phase] });
}

// --phases LIST: the model with these phases instead of its own (lab/scenario/phase-list.js);
// --scale stretches them as it does any scenario's.
function withPhases(model, values) {
  for (const f of ['rate', 'rate-scale', 'duration']) {
    if (values[f] !== undefined)
      refuse('LAB_ERR_FLAGS_EXCLUDE', 'phases', f, `--phases gives the rates and the durations itself: drop --${f}`);
  }
  return checkModel({ ...model, phases: values.phases.map((ph) => scalePhase(ph, values.scale ?? 1)) });
}

// What the run sends: the scenario model (lab/scenario/model.js) of an Artillery script or of
// the lab's catalogue, or, for the signal endpoint, its stages of participants.
function scenarioOf(words, values, given) {
  const what = scenarioOfWords(words, values, given);
  for (const f of ['rate', 'phases']) {
    if (values[f] !== undefined && what.signal)
      refuse('LAB_ERR_FLAG_VALUE', f, null, 'it is arrivals a second; the signal endpoint has participants');
  }
  return { ...what, model: what.model && atRate(what.model, values) };
}

function scenarioOfWords(words, values, given) {
  const options = { scale: values.scale ?? 1, rateScale: values['rate-scale'] ?? 1, durationS: values.duration };
  if (values.script) {
    for (const f of ['method', 'body', 'header', 'work-n', 'warm-cache']) {
      if (f === 'method' ? methodsOf(values).http : given.has(f))
        refuse(
          'LAB_ERR_FLAGS_EXCLUDE',
          f,
          'script',
          `--${f} shapes the lab's own request; your script (--script) says its own`,
        );
    }
    return {
      model: readScript(values.script, { ...options, ...scriptOptionsOf(values, given) }),
      options,
      signal: false,
    };
  }
  scriptOptionsOf(values, given);
  const { endpoint, scenario } = words;
  if (!isPath(endpoint)) pick('endpoint', endpoint, ENDPOINTS);
  pick('scenario', scenario, SCENARIOS);
  const signal = Boolean(endpointOf(endpoint).participants);
  if (signal) {
    if (values.app || methodsOf(values).http || ['body', 'header'].some((f) => given.has(f))) {
      refuse(
        'LAB_ERR_FLAG_VALUE',
        ['app', 'method', 'body', 'header'].find((f) => given.has(f)),
        null,
        "it is for HTTP, and the signal endpoint is the lab's own WebSocket signaling (--app, --method, --body and --header)",
      );
    }
    const stages = signalStages(scenario, options);
    const signalPlan = {
      name: endpoint,
      stages,
      ...SIGNAL.participant,
      timeoutMs: REQUEST_TIMEOUT_S * 1000,
      // The progress line and the summary read phases: one per stage.
      phases: stages.map((st) => ({ name: st.name, duration: st.duration })),
    };
    return { model: null, options, signal: true, signalPlan, participants: Math.max(...stages.map((st) => st.target)) };
  }
  if (values['warm-cache'] && !endpointOf(endpoint)?.objects) {
    refuse(
      'LAB_ERR_FLAG_VALUE',
      'warm-cache',
      null,
      `it is for endpoints of many cacheable objects (asset), not ${endpoint}`,
    );
  }
  if (values['work-n'] !== undefined && endpoint !== 'work')
    refuse('LAB_ERR_FLAG_VALUE', 'work-n', values['work-n'], `it is for the work endpoint, not ${endpoint}`);
  // The request every arrival sends (lab/scenario/request.js); the lab's own endpoints keep
  // their path (and query) and may change the method, headers or body too.
  const request = requestOf({
    path: pathOf(endpoint, values['work-n'] !== undefined ? { n: values['work-n'] } : null),
    method: methodsOf(values).http,
    body: values.body,
    headers: values.header,
  });
  return { model: catalogueModel({ endpoint, scenario, request, options }), options, signal: false };
}

module.exports = { parseEitherMethod, methodsOf, refuse, wordsOf, scenarioOf };
