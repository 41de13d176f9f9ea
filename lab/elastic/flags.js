'use strict';

const { flag } = require('../terminal/flags');
const parseDuration = require('../terminal/duration');
const { labError } = require('../../common/errors');
const { LIMITS } = require('../topology/deployments');
const { DEFAULTS, scaledRule } = require('./hpa');
const { rolloutBounds } = require('./replicas');
const { kindOf } = require('../kinds');

// --autoscale and --rollout-at, on the commands that run a load (scenario, study): replicas
// that change while it runs (lab/elastic/). Checked once, before anything starts.

const METRICS = Object.freeze({
  cpu: { what: 'CPU per replica, % of its cores (its cap, else one core per worker)', unit: '%', target: 50 },
  loop: { what: "event-loop utilization per replica, % (the runtime probe's)", unit: '%', target: 50, probe: true },
  rps: { what: 'requests a second per replica', unit: '/s', target: null, probe: true },
});

// Seconds, 0 allowed (a window of none).
const seconds0 = parseDuration.orZero;

// "100%/15s,4/15s": policies, each a percent or a count of replicas per period.
function parsePolicies(raw) {
  return String(raw)
    .split(',')
    .map((part) => {
      const m = /^\s*(\d+)(%?)\s*\/\s*(\S+)\s*$/.exec(part);
      if (!m || !(Number(m[1]) > 0)) throw new Error('no policy');
      return { type: m[2] ? 'Percent' : 'Pods', value: Number(m[1]), periodS: parseDuration(m[3]) };
    });
}

// What the tuning flags need (the flag schema refuses them alone: lab/terminal/flags.js).
const TUNES_AUTOSCALE = { flags: ['autoscale'], why: 'it tunes the autoscaler' };
const TUNES_ROLLOUT = { flags: ['rollout-at'], why: 'it tunes a rollout' };
const REMOVES = {
  flags: ['rollout-at', 'autoscale'],
  why: 'it is how a replica the lab removes is stopped, and none is removed without a rollout or the autoscaler',
};

const ELASTIC_FLAGS = {
  autoscale: flag.pattern(/^\d{1,2}-\d{1,2}$/, 'MIN-MAX replicas, like 1-4'),
  'autoscale-metric': { ...flag.enum(Object.keys(METRICS), 'autoscale metric'), needs: TUNES_AUTOSCALE },
  'autoscale-target': {
    ...flag.pattern(/^((cpu|loop|rps)=)?\d+(\.\d+)?%?$/, 'the value wanted per replica: cpu=50%, loop=60%, rps=40'),
    needs: TUNES_AUTOSCALE,
  },
  'autoscale-sync': { ...flag.duration(), needs: TUNES_AUTOSCALE },
  'autoscale-tolerance': { type: 'number', min: 0, max: 1, needs: TUNES_AUTOSCALE },
  'autoscale-up-window': {
    type: 'custom',
    parse: seconds0,
    expected: 'a duration (0, 30s, 5m)',
    needs: TUNES_AUTOSCALE,
  },
  'autoscale-down-window': {
    type: 'custom',
    parse: seconds0,
    expected: 'a duration (0, 30s, 5m)',
    needs: TUNES_AUTOSCALE,
  },
  'autoscale-up-policy': {
    type: 'custom',
    parse: parsePolicies,
    expected: 'policies like 100%/15s,4/15s',
    needs: TUNES_AUTOSCALE,
  },
  'autoscale-down-policy': {
    type: 'custom',
    parse: parsePolicies,
    expected: 'policies like 100%/15s',
    needs: TUNES_AUTOSCALE,
  },
  'rollout-at': flag.duration(),
  'max-surge': { ...flag.pattern(/^\d+%?$/, 'a count or a percent of the replicas (1, 25%)'), needs: TUNES_ROLLOUT },
  'max-unavailable': {
    ...flag.pattern(/^\d+%?$/, 'a count or a percent of the replicas (0, 25%)'),
    needs: TUNES_ROLLOUT,
  },
  'app-next': { ...flag.path(), needs: TUNES_ROLLOUT },
  'pre-stop': {
    needs: REMOVES,
    type: 'custom',
    parse: (raw) => {
      const s = seconds0(raw);
      if (s > 120) throw new Error('too long');
      return s;
    },
    expected: 'a duration of at most 120 s (0: none)',
  },
  grace: {
    needs: REMOVES,
    type: 'custom',
    parse: (raw) => {
      const s = parseDuration(raw);
      if (s > 120) throw new Error('too long');
      return s;
    },
    expected: 'a duration of at most 120 s',
  },
};

const ELASTIC_HELP = `  --autoscale MIN-MAX  replicas added and removed while the load runs, by Kubernetes' HPA rule
                   (desired = ceil(replicas x metric / target), a 10% tolerance, no up window, a
                   300 s down window, up by 100% or 4 per 15 s, down by 100% per 15 s; a 15 s
                   sync; --scale shortens every time); it starts at MIN unless --replicas
    --autoscale-metric cpu|loop|rps  --autoscale-target cpu=50% (loop=60%, rps=40)
    --autoscale-sync D, --autoscale-tolerance F, --autoscale-up-window D,
    --autoscale-down-window D, --autoscale-up-policy 100%/15s,4/15s, --autoscale-down-policy 100%/15s
  --rollout-at T   at T into the load, every replica replaced one at a time (Kubernetes'
                   RollingUpdate): --max-surge N|P% (default 25%), --max-unavailable N|P% (25%),
                   --app-next DIR (the new version of --app), --grace D (SIGTERM to SIGKILL,
                   default 30s); each old replica out of the entry before its SIGTERM, and
                   --pre-stop D holds the SIGTERM until it has no connection left (at most D,
                   a preStop hook's wait; default 0)`;

// The target per replica: --autoscale-target, else the metric's default.
function targetOf(values, metric) {
  const raw = values['autoscale-target'];
  if (raw === undefined) {
    if (METRICS[metric].target === null)
      throw labError(
        'LAB_ERR_FLAG_NEEDS',
        'autoscale-metric',
        'autoscale-target',
        `${metric} has no default target: give --autoscale-target ${metric}=N`,
      );
    return METRICS[metric].target;
  }
  const m = /^(?:(cpu|loop|rps)=)?(\d+(?:\.\d+)?)(%?)$/.exec(raw);
  if (m[1] && m[1] !== metric)
    throw labError(
      'LAB_ERR_FLAG_VALUE',
      'autoscale-target',
      raw,
      `is for ${m[1]}, and the metric is ${metric} (--autoscale-metric)`,
    );
  if (m[3] && metric === 'rps')
    throw labError('LAB_ERR_FLAG_VALUE', 'autoscale-target', raw, 'rps is a rate, not a percent');
  const v = Number(m[2]);
  if (!(v > 0)) throw labError('LAB_ERR_FLAG_VALUE', 'autoscale-target', raw, 'expected above 0');
  // (A replica's CPU is a share of what it may use, its cap or a core a worker; its loop busy a
  // share of its time: neither passes 100%, and a target above it never scales up.)
  if (metric !== 'rps' && v > 100)
    throw labError('LAB_ERR_FLAG_VALUE', 'autoscale-target', raw, `${metric} is a share of at most 100%`);
  return v;
}

// -> { autoscale, rollout } (each null when not asked), or null. { deployment, runtime,
// probe (the runtime probe on), app (--app's), appNext (--app-next's, read), scale (--scale),
// durationS (the load's) }.
function elasticOf(
  values,
  { runtime = 'local', probe = true, scale = 1, durationS = null, hasApp = false, replicas = null } = {},
) {
  const given = (f) => values[f] !== undefined;
  // (The tuning flags alone are refused by their needs, in the flag schema.)
  if (!given('autoscale') && !given('rollout-at')) return null;
  if (given('autoscale') && given('rollout-at'))
    throw labError('LAB_ERR_FLAGS_EXCLUDE', 'autoscale', 'rollout-at', 'one change of the replicas at a time, for now');
  if (runtime === 'swarm')
    throw labError(
      'LAB_ERR_NOT_ON_ENGINE',
      '--engine swarm',
      'replicas that change under load run on --engine local or compose (the swarm scales itself)',
    );
  const graceS = values.grace ?? 30;
  const preStopS = values['pre-stop'] ?? 0;
  let autoscale = null;
  if (given('autoscale')) {
    const [min, max] = values.autoscale.split('-').map(Number);
    if (!(min >= 1 && max >= min && max <= LIMITS.replicas.max))
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        'autoscale',
        values.autoscale,
        `expected 1 <= MIN <= MAX <= ${LIMITS.replicas.max}`,
      );
    if (values.replicas !== undefined && (values.replicas < min || values.replicas > max))
      throw labError(
        'LAB_ERR_FLAG_VALUE',
        'replicas',
        values.replicas,
        `outside --autoscale ${values.autoscale}: the autoscaler starts at --replicas, between MIN and MAX (MIN when not given)`,
      );
    const metric = values['autoscale-metric'] ?? 'cpu';
    if (METRICS[metric].probe && !probe)
      throw labError(
        'LAB_ERR_FLAGS_EXCLUDE',
        'autoscale-metric',
        'no-probe',
        `${metric} reads the runtime probe: drop --no-probe`,
      );
    const rule = scaledRule(
      {
        ...DEFAULTS,
        ...(given('autoscale-sync') ? { syncS: values['autoscale-sync'] } : {}),
        ...(given('autoscale-tolerance') ? { tolerance: values['autoscale-tolerance'] } : {}),
        ...(given('autoscale-up-window') ? { upWindowS: values['autoscale-up-window'] } : {}),
        ...(given('autoscale-down-window') ? { downWindowS: values['autoscale-down-window'] } : {}),
        ...(given('autoscale-up-policy') ? { upPolicies: values['autoscale-up-policy'] } : {}),
        ...(given('autoscale-down-policy') ? { downPolicies: values['autoscale-down-policy'] } : {}),
      },
      scale,
    );
    autoscale = {
      min,
      max,
      metric,
      unit: METRICS[metric].unit,
      target: targetOf(values, metric),
      rule,
      graceS,
      preStopS,
    };
  }
  let rollout = null;
  if (given('rollout-at')) {
    if (durationS !== null && values['rollout-at'] >= durationS)
      throw labError('LAB_ERR_FLAG_VALUE', 'rollout-at', `${values['rollout-at']} s`, `the load lasts ${durationS} s`);
    if (given('app-next') && !hasApp)
      throw labError('LAB_ERR_FLAG_NEEDS', 'app-next', 'app', 'it is the new version of --app');
    // (Checked again against the replicas the run starts with, once it knows them.)
    rolloutBounds(replicas, { maxSurge: values['max-surge'], maxUnavailable: values['max-unavailable'] });
    rollout = {
      atS: values['rollout-at'],
      maxSurge: values['max-surge'] ?? '25%',
      maxUnavailable: values['max-unavailable'] ?? '25%',
      appNext: values['app-next'] ?? null,
      graceS,
      preStopS,
    };
  }
  return Object.freeze({ autoscale, rollout });
}

// The deployment can have its replicas changed under load, on its runtime, before anything
// starts (lab/runtime/local-replicas.js says the same of a deployment that is up).
function assertElastic(deployment, runtime) {
  const kind = kindOf(deployment.balancer.kind);
  const refuse = (why) => {
    throw labError('LAB_ERR_ELASTIC', why);
  };
  if (deployment.balancer.kind === 'none')
    refuse('it has no balancer (--balancer none): its clients hold the list of replicas');
  if (deployment.edges) refuse('its caching edges (cdn) would each need their upstreams changed; not done yet');
  if (runtime === 'local' && !kind.host?.reload)
    refuse(`its entry (${kind.name}) cannot take a new list of replicas while it runs`);
  if (runtime === 'compose' && !kind.nginx)
    refuse(
      `on compose the entry is told of new replicas by nginx's reload: use --balancer nginx (not ${kind.name}), or --engine local`,
    );
}

// A flag's spec for a command that is itself what the flag tunes (npm run rollout, scale).
const standalone = ({ needs: _needs, ...spec }) => spec;

module.exports = {
  standalone,
  ELASTIC_FLAGS,
  ELASTIC_HELP,
  METRICS,
  elasticOf,
  assertElastic,
  parsePolicies,
  targetOf,
};
