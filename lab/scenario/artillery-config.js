'use strict';

const ms = require('ms');
const { scalePhase } = require('../../artillery/phases');
const { REQUEST_TIMEOUT_S } = require('../../artillery/scenarios');
const { LIMITS } = require('./limits');
const { ONLY_ARTILLERY } = require('./artillery-features');
const { isMap, lowKeys, HTTP_CONFIG, DEFAULTS, PHASE_KEYS } = require('./artillery-fields');

// An Artillery script's config as the lab's engines run it (the script reader,
// from-artillery.js, calls these with its reader `r`, whose fail() names the field's line):
// the HTTP settings and defaults, the phases, the variables.

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

module.exports = { readHttp, duration, readPhases, readVariables };
