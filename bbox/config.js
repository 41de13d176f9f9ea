'use strict';

const fs = require('node:fs');
const path = require('node:path');
const parseSettings = require('../common/settings');
const { labError } = require('../common/errors');
const parseProperties = require('./properties');
const { deriveParams } = require('./params');

const DEFAULT_FILE = path.join(__dirname, 'config.properties');

// Each setting can come from the properties file, the environment or a flag (in rising
// precedence). The error for a bad value names the spelling the user actually used.
const fields = {
  basePort: {
    prop: 'server.basePort',
    env: 'BBOX_BASE_PORT',
    flag: '--port',
    type: 'int',
    min: 0,
    max: 65534,
    default: 9090,
  },
  host: { prop: 'server.host', env: 'BBOX_HOST', flag: '--host', type: 'string', default: '127.0.0.1' },
  key: { prop: 'group.key', env: 'BBOX_KEY', flag: '--key', type: 'string', default: '' },
  bbox1Delay: { prop: 'bbox1.delayMs', env: 'BBOX1_DELAY_MS', flag: '--bbox1-delay', type: 'int', min: 1, max: 600000 },
  bbox2Delay: { prop: 'bbox2.delayMs', env: 'BBOX2_DELAY_MS', flag: '--bbox2-delay', type: 'int', min: 1, max: 600000 },
  sync: { prop: 'sync.service', env: 'BBOX_SYNC', flag: '--sync', type: 'enum', values: ['bbox1', 'bbox2'] },
  workers: { prop: 'sync.workers', env: 'BBOX_WORKERS', flag: '--workers', type: 'int', min: 1, max: 10000 },
  // Large on purpose: an overloaded synchronous box should show latency growing until the
  // clients give up, as in the course report, not early 503s.
  backlog: {
    prop: 'sync.backlog',
    env: 'BBOX_BACKLOG',
    flag: '--backlog',
    type: 'int',
    min: 0,
    max: 1000000,
    default: 10000,
  },
};

function readFile(file, explicit) {
  try {
    return parseProperties(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    if (!explicit && err.code === 'ENOENT') return {};
    throw labError('LAB_ERR_CONFIG', 'config file', file, `a readable properties file (${err.code || err.message})`);
  }
}

// flags: { '--port': '9090', ... } as typed; env: process.env.
function loadConfig({ flags = {}, env = process.env } = {}) {
  const explicitFile = flags['--config'] ?? env.BBOX_CONFIG;
  const props = readFile(explicitFile ?? DEFAULT_FILE, explicitFile !== undefined);
  const schema = {};
  const source = {};
  for (const [key, f] of Object.entries(fields)) {
    const origin = [
      [f.flag, flags[f.flag]],
      [f.env, env[f.env]],
      [f.prop, props[f.prop]],
    ].find(([, v]) => v !== undefined && v !== '') || [f.flag, undefined];
    schema[key] = { ...f, name: origin[0] };
    source[origin[0]] = origin[1];
  }
  const s = parseSettings(schema, source);
  return Object.freeze({ host: s.host, basePort: s.basePort, key: s.key, backlog: s.backlog, services: resolve(s) });
}

// The key's parameters with the explicit overrides applied.
function resolve(s) {
  const derived = deriveParams(s.key);
  const syncName = s.sync ?? (derived.bbox1.kind === 'sync' ? 'bbox1' : 'bbox2');
  const workers = s.workers ?? (derived.bbox1.workers || derived.bbox2.workers);
  const out = {};
  for (const [i, name] of ['bbox1', 'bbox2'].entries()) {
    const delayMs = (i === 0 ? s.bbox1Delay : s.bbox2Delay) ?? derived[name].delayMs;
    const port = s.basePort === 0 ? 0 : s.basePort + i;
    out[name] = name === syncName ? { port, kind: 'sync', delayMs, workers } : { port, kind: 'async', delayMs };
  }
  return out;
}

module.exports = { loadConfig, fields, DEFAULT_FILE };
