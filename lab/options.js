'use strict';

const path = require('node:path');
const { parseArgs } = require('node:util');
const { labError } = require('../common/errors');
const { DEFAULT_BASE } = require('./ports');

const ROOT = path.join(__dirname, '..');

// Flags several commands share. Each command adds its own.
const COMMON = {
  'port-base': { type: 'string' },
  host: { type: 'string' },
  'state-dir': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
};

// Parses argv strictly; a bad flag is a usage error (exit 2) with the command's usage.
function parseCommandLine(argv, options, usage) {
  try {
    return parseArgs({ args: argv, options: { ...COMMON, ...options }, allowPositionals: true, strict: true });
  } catch (err) {
    throw labError('LAB_ERR_USAGE', `${err.message}\n${usage}`);
  }
}

// Where the lab keeps the state of what is up, and the port base, from flags or env.
function labContext(values, env = process.env) {
  const rawBase = values['port-base'] ?? env.LAB_PORT_BASE ?? String(DEFAULT_BASE);
  if (!/^\d+$/.test(rawBase)) throw labError('LAB_ERR_USAGE', `--port-base must be a port number, got "${rawBase}"`);
  return {
    portBase: Number(rawBase),
    host: values.host ?? env.LAB_HOST ?? '127.0.0.1',
    stateDir: path.resolve(values['state-dir'] ?? env.LAB_STATE_DIR ?? path.join(ROOT, '.lab')),
  };
}

// A multiplier flag (--scale, --rate-scale): above 0, at most 100, default 1.
function factorFlag(flag, raw) {
  if (raw === undefined) return 1;
  const v = Number(raw);
  if (!Number.isFinite(v) || v <= 0 || v > 100) {
    throw labError('LAB_ERR_USAGE', `--${flag} must be a number above 0 and at most 100, got "${raw}"`);
  }
  return v;
}

module.exports = { parseCommandLine, labContext, factorFlag, ROOT };
