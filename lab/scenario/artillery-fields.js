'use strict';

const { ONLY_ARTILLERY } = require('./artillery-features');

// What an Artillery script may hold, as one table per part (the script reader's
// from-artillery.js, artillery-config.js and artillery-flow.js check against it), and the
// small tests of a value's form they share.

const isMap = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);
const isNum = (v) => typeof v === 'number' && Number.isFinite(v);

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
    // The ws and socketio engines' (./artillery-ws.js, ./artillery-socketio.js).
    'ws',
    'socketio',
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
  // The socketio engine's client options for this scenario (./artillery-socketio.js).
  'socketio',
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
const FOREIGN_REQUEST = { setContentLengthHeader: ONLY_ARTILLERY.contentLength };
// (A ws engine's send or connect in an HTTP flow is not a field of it: Artillery's HTTP
// engine would take it for a request of an unknown method.)
const FOREIGN_STEP = {
  emit: ONLY_ARTILLERY.socketio,
};
const lowKeys = (h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));

module.exports = {
  isMap,
  isNum,
  lowKeys,
  TOP,
  CONFIG,
  HTTP_CONFIG,
  DEFAULTS,
  PLUGINS_RUN,
  PHASE_KEYS,
  SCENARIO_KEYS,
  FLOW_ENGINES,
  REQUEST_KEYS,
  FOREIGN_REQUEST,
  FOREIGN_STEP,
};
