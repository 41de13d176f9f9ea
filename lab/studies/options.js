'use strict';

// A study's options from the command line (npm run study): the flags that belong to some
// studies only (the others refuse them, by name), the balancers, TLS and the paths of your
// service, each checked against the study asked (lab/studies/).

const { STUDIES } = require('./index');
const { MATRIX } = require('./course-plan');
const { BALANCERS, kindOf } = require('../kinds');
const { COURSE } = require('../topology/deployments');
const { SCENARIOS } = require('../../artillery/scenarios');
const { pickList } = require('../names');
const { labError } = require('../../common/errors');
const { profileOf } = require('../profile/flags');
const { tlsOf } = require('../tls/flags');
const { APP_FLAGS } = require('../app/flags');
const { runScriptOptionsOf, scriptArgs, SCRIPT_FLAG_NAMES } = require('../scenario/script-flags');

const BALANCER_NAMES = BALANCERS.map((k) => k.name);

// Flags that belong to some studies; the others refuse them.
const OWN_FLAGS = {
  engine: ['balancers'],
  balancers: ['lb-modes', 'balancers', 'deployments', 'scaling', 'tls'],
  repetitions: ['cdn', 'lb-modes', 'balancers'],
};

// A comma-separated list of names, each checked against the table's names.
const list = (kind, raw, valid) => (raw === undefined ? undefined : pickList(kind, raw, valid));

// --balancers: kinds of lab/kinds/, each able to run where the study runs it (lb-modes: on
// this machine; balancers: here or on a swarm).
function balancerList(study, raw) {
  if (raw === undefined) return undefined;
  const names = list('balancer', raw, BALANCER_NAMES);
  if (new Set(names).size !== names.length)
    throw labError('LAB_ERR_FLAG_VALUE', 'balancers', raw, 'names a kind twice');
  if (study.name === 'tls') {
    // (Only an L7 kind terminates TLS: lab/kinds/ says why another cannot.)
    for (const n of names) if (!kindOf(n).tls) throw labError('LAB_ERR_TLS', kindOf(n).tlsWhy);
  }
  if (study.name === 'lb-modes') {
    for (const n of names) {
      if (!kindOf(n).runtimes.includes('local'))
        throw labError(
          'LAB_ERR_FLAG_VALUE',
          'balancers',
          raw,
          `${n} does not run on this machine (lb-modes runs locally)`,
        );
    }
  }
  return names;
}

// --tls / --http2 for a study's runs, each kind it deploys behind able to terminate TLS.
function tlsValues(values, kinds) {
  for (const balancer of kinds ?? ['nginx']) tlsOf(values, { balancer });
  return values.http2 ? { http2: true } : values.tls ? { tls: true } : {};
}

// Your service's stores and set-up, and --no-probe (its flags but the service's own, which the
// study keeps apart): passed on to each run as given.
const STORE_FLAGS = Object.keys(APP_FLAGS).filter((n) => !['app', 'app-cmd', 'health'].includes(n));
// The flags of `names` given (a switch not given reads false: not given), with their values.
const given = (values, names) =>
  Object.fromEntries(names.filter((n) => values[n] !== undefined && values[n] !== false).map((n) => [n, values[n]]));

// The studies of your own service (--app): their --endpoints are its paths.
// (A study of your service, or one that takes it when given: its endpoints are its paths.)
const yours = (study) => study.seed === 'yours' || study.takesApp === true;

// a, b and c
const words = (list) => (list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list[0]);

function options(study, values) {
  for (const name of Object.keys(values)) {
    // A flag some studies declare (their `flags`) is theirs alone.
    const owners = Object.values(STUDIES).filter((s) => (s.flags || []).includes(name));
    if (owners.length && !owners.includes(study)) {
      const list = owners.map((s) => s.name);
      throw labError('LAB_ERR_STUDY_FLAG', name, `${words(list)} stud${list.length > 1 ? 'ies' : 'y'}`, study.name);
    }
    if (OWN_FLAGS[name] && !OWN_FLAGS[name].includes(study.name)) {
      throw labError(
        'LAB_ERR_STUDY_FLAG',
        name,
        `${words(OWN_FLAGS[name])} stud${OWN_FLAGS[name].length > 1 ? 'ies' : 'y'}`,
        study.name,
      );
    }
  }
  return {
    scale: values.scale ?? 1,
    rateScale: values['rate-scale'] ?? 1,
    durationS: values.duration,
    generator: values.generator,
    engine: values.engine,
    balancers: balancerList(study, values.balancers),
    repetitions: values.repetitions,
    // (Your service's endpoints are its paths.)
    endpoints: yours(study) ? paths(values.endpoints) : list('endpoint', values.endpoints, MATRIX),
    paths: yours(study) ? paths(values.endpoints) : undefined,
    app: values.app,
    appCmd: values['app-cmd'],
    health: values.health,
    // Its stores and set-up (--with, --app-setup...) and --no-probe, passed on to each run as
    // given, as values (./passed.js).
    storeValues: given(values, STORE_FLAGS),
    // The capacity runs' own: a fresh deployment per level (a service whose state grows), and
    // the highest rate tried.
    freshPerLevel: values['fresh-per-level'],
    maxRate: values['max-rate'],
    // --profile, passed on to every run (checked here: not with --no-probe); --tls and
    // --http2 too (checked against each --balancers kind).
    profileValues: {
      ...(profileOf(values) ? given(values, ['profile', 'profile-interval']) : {}),
      ...tlsValues(values, balancerList(study, values.balancers)),
    },
    script: values.script,
    // (Read once here: a flag without --script is refused, the script read with them.)
    scriptOptions: runScriptOptionsOf(values),
    scriptValues: given(values, SCRIPT_FLAG_NAMES),
    // (As typed, for the study's settings: what makes two studies the same.)
    scriptArgs: scriptArgs(values),
    slos: values.slo && values.slo.length ? values.slo : undefined,
    // The elasticity study's own (lab/studies/elasticity.js).
    autoscale: values.autoscale,
    autoscaleMetric: values['autoscale-metric'],
    autoscaleTarget: values['autoscale-target'],
    sloP99: values['slo-p99'],
    scenarios: list('scenario', values.scenarios, SCENARIOS),
    deployments: list(
      'deployment',
      values.deployments,
      COURSE.map((p) => p.name),
    ),
  };
}

function paths(raw) {
  if (raw === undefined) return undefined;
  const out = raw.split(',').map((p) => p.trim());
  for (const p of out)
    if (!p.startsWith('/'))
      throw labError('LAB_ERR_FLAG_VALUE', 'endpoints', `"${p}"`, "your service's paths start with /");
  return out;
}
module.exports = { options };
