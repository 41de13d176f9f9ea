'use strict';

// What a study's runs are given of what the user typed for the study (issue 85): the values the
// study's own flag table parsed, set on each run's job (./step-job.js) as data, where the run's
// command takes the same flag (the service's flags and its stores', --profile, --tls, the script
// and Artillery's flags for it, the SLOs, the scales): never written back as text for the run
// to parse again. What the study decides itself (its rates, counts, caps) stays its runs' words.

// An object without its unset keys (a flag not given is no key of a job).
const defined = (o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null));

// Your service and its stores, as given (--app, --app-cmd, --health, --with, ..., --no-probe).
const serviceValues = (o) =>
  o.app ? defined({ app: o.app, 'app-cmd': o.appCmd, health: o.health, ...(o.storeValues || {}) }) : {};

// --profile (and its interval), --tls or --http2, as given.
const profileValues = (o) => ({ ...(o.profileValues || {}) });

// The script and Artillery's run flags for it, as given.
const scriptValues = (o) => (o.script ? defined({ script: o.script, ...(o.scriptValues || {}) }) : {});

// The scales of a scenario run (--scale always, as the study says it; --rate-scale and
// --duration when given, the duration only for a scenario that takes one).
const scaleValues = (o, { scale = true, duration = false } = {}) =>
  defined({
    ...(scale ? { scale: o.scale } : {}),
    'rate-scale': o.rateScale !== undefined && o.rateScale !== 1 ? o.rateScale : undefined,
    duration: duration ? o.durationS : undefined,
  });

// A capacity run's --fresh-per-level and --max-rate, as given. (The SLOs are passed as their
// text, which the study checked and keeps, for the run's own table to parse: as capacity passes
// --method on.)
const searchValues = (o) =>
  defined({
    'fresh-per-level': o.freshPerLevel || undefined,
    'max-rate': o.maxRate,
  });

module.exports = { defined, serviceValues, profileValues, scriptValues, scaleValues, searchValues };
