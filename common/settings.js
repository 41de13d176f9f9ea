'use strict';

const { labError } = require('./errors');

// Reads a flat set of settings (environment variables, flags, properties) against a schema,
// once, at start-up. A bad value throws LAB_ERR_CONFIG naming the setting and what is
// allowed; the result is frozen so nothing changes it later.
//
// A schema is { key: { name, type, default, min, max, values } } where `name` is what the
// user typed (e.g. "WORKERS") and `type` is int | number | string | url | enum | bool | custom.
// `above` makes a number's lower bound exclusive (a factor above 0); a custom type brings its
// own `parse(raw)` (throwing on a bad value) and the `expected` text of its message.
const parsers = {
  int(raw, spec) {
    const text = String(raw).trim();
    const n = /^-?\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < spec.min || n > spec.max) {
      throw labError('LAB_ERR_CONFIG', spec.name, raw, `an integer from ${spec.min} to ${spec.max}`);
    }
    return n;
  },
  number(raw, spec) {
    const text = String(raw).trim();
    const n = text === '' ? NaN : Number(text);
    const low = spec.above ?? spec.min;
    const tooLow = spec.above !== undefined ? !(n > spec.above) : n < spec.min;
    if (!Number.isFinite(n) || tooLow || n > spec.max) {
      const range = spec.above !== undefined ? `above ${low} and at most ${spec.max}` : `from ${low} to ${spec.max}`;
      throw labError('LAB_ERR_CONFIG', spec.name, raw, `a number ${range}`);
    }
    return n;
  },
  string(raw) {
    return String(raw);
  },
  url(raw, spec) {
    try {
      const url = new URL(String(raw));
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('protocol');
      return url.toString().replace(/\/$/, '');
    } catch {
      throw labError('LAB_ERR_CONFIG', spec.name, raw, 'an http:// or https:// URL');
    }
  },
  enum(raw, spec) {
    const text = String(raw).trim();
    if (!spec.values.includes(text)) {
      throw labError('LAB_ERR_CONFIG', spec.name, raw, `one of ${spec.values.join(', ')}`);
    }
    return text;
  },
  custom(raw, spec) {
    try {
      return spec.parse(String(raw));
    } catch (err) {
      // (A parser may say why, for the user: err.reason.)
      throw labError('LAB_ERR_CONFIG', spec.name, raw, `${spec.expected}${err.reason ? `; ${err.reason}` : ''}`);
    }
  },
  bool(raw, spec) {
    const text = String(raw).trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(text)) return true;
    if (['0', 'false', 'no', 'off', ''].includes(text)) return false;
    throw labError('LAB_ERR_CONFIG', spec.name, raw, 'true or false');
  },
};

function parseSettings(schema, source) {
  const out = {};
  for (const [key, spec] of Object.entries(schema)) {
    const raw = source[spec.name];
    if (raw === undefined || raw === null || (raw === '' && spec.type !== 'string')) {
      out[key] = typeof spec.default === 'function' ? spec.default(out) : spec.default;
      continue;
    }
    try {
      out[key] = parsers[spec.type](raw, spec);
    } catch (err) {
      err.setting = spec.name; // lets a CLI tell a bad flag (usage, exit 2) from bad config
      throw err;
    }
  }
  return Object.freeze(out);
}

module.exports = parseSettings;
