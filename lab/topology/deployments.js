'use strict';

const { pick } = require('../names');
const { labError } = require('../../common/errors');

const { KINDS, EDGE_BY_FLAG, kindOf, reachesAllFromOneClient } = require('../kinds');

// The deployments the lab compares, as data: adding one means adding a row. Every one puts
// a balancer in front (nginx unless --balancer says another kind of lab/kinds/), because the
// extra hop is part of what the course measured.

// How a balancer may pick a replica; each kind names the ones it can do (lab/kinds/).
const METHOD_NAMES = Object.freeze(['round-robin', 'least_conn', 'hash']);

const BALANCER = Object.freeze({
  kind: 'nginx',
  method: 'round-robin',
  // Idle connections a proxy keeps open to each replica. Without them nginx reached ~0.5x of
  // Express direct on the 2-core machine (wrk, 50 connections), with 64 ~0.8x (bench/nginx-tax.js).
  keepalive: 64,
  // Passive failure handling: a replica failing this often in failTimeoutS is left out for
  // failTimeoutS; a failed idempotent request is retried on the next one, at most `tries`.
  maxFails: 3,
  failTimeoutS: 5,
  tries: 2,
});

// `course`: the four deployments of the course (seed 003), which its study compares.
const PRESETS = [
  { name: 'single', course: true, replicas: 1, workers: 1, description: 'one node, one worker' },
  {
    name: 'replicated',
    course: true,
    replicas: 3,
    workers: 1,
    description: 'replicated single-worker nodes behind nginx',
  },
  {
    name: 'multi',
    course: true,
    aliases: ['cluster'],
    replicas: 1,
    workers: 3,
    description: 'one node with node:cluster workers',
  },
  {
    name: 'multi-replicated',
    course: true,
    aliases: ['replicated-cluster'],
    replicas: 3,
    workers: 3,
    description: 'replicated multi-worker nodes behind nginx',
  },
  // Seed 000: a balancer hashing the URI consistently over 4 caching nginx edges, in front
  // of 2 backends. One object always goes to the same edge, so each edge caches a quarter.
  {
    name: 'cdn',
    replicas: 2,
    workers: 1,
    edges: 4,
    balancer: { method: 'hash' },
    description: 'a balancer hashing URIs over 4 caching edges in front of 2 backends',
  },
];

const LIMITS = { replicas: { min: 1, max: 32 }, workers: { min: 1, max: 32 }, edges: { min: 0, max: 16 } };

const byName = {};
for (const p of PRESETS) for (const n of [p.name, ...(p.aliases || [])]) byName[n] = p;

// Counts come checked from the flag schema (lab/terminal/flags.js) or from the lab's own tables;
// this guards the ones that come from anywhere else.
function checkCount(kind, value) {
  const { min, max } = LIMITS[kind];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw labError('LAB_ERR_FLAG_VALUE', kind, `"${value}"`, `an integer from ${min} to ${max}`);
  }
  return n;
}

// A deployment by name (or alias), with --replicas / --workers / --method overrides applied,
// and `app` (a resolved --app, or null for the lab's own service).
function resolveDeployment(name, overrides = {}) {
  const preset = pick('deployment', name, byName);
  const replicas = checkCount('replicas', overrides.replicas) ?? preset.replicas;
  const workers = checkCount('workers', overrides.workers) ?? preset.workers;
  const edges = checkCount('edges', overrides.edges) ?? preset.edges ?? 0;
  const balancer = { ...BALANCER, ...(preset.balancer || {}) };
  const balancerNames = Object.keys(KINDS).filter((k) => KINDS[k].role === 'balancer');
  if (overrides.balancer !== undefined) balancer.kind = pick('balancer', overrides.balancer, balancerNames);
  // A row's method (cdn hashes) that the chosen kind cannot do falls back to the kind's own.
  const allowed = kindOf(balancer.kind).methods;
  if (!allowed.includes(balancer.method)) balancer.method = allowed[0];
  if (overrides.method !== undefined) balancer.method = pick('method', overrides.method, allowed);
  const edgeKind =
    overrides.edgeKind !== undefined ? pick('edge kind', overrides.edgeKind, EDGE_BY_FLAG).name : 'nginx-edge';
  const counts = replicas !== preset.replicas || workers !== preset.workers ? `${replicas}x${workers}` : null;
  const edgeCount = edges !== (preset.edges ?? 0) ? `${edges} edge(s)` : null;
  const presetBalancer = { ...BALANCER, ...(preset.balancer || {}) };
  const kind = balancer.kind !== presetBalancer.kind ? balancer.kind : null;
  const method = balancer.method !== presetBalancer.method ? balancer.method : null;
  const edgeKindText = edges && edgeKind !== 'nginx-edge' ? `${EDGE_BY_FLAG[overrides.edgeKind].flag} edges` : null;
  // A user's own service (--app, lab/app/contract.js) in place of the lab's reference one.
  const app = overrides.app ?? null;
  // Its data stores (--with: lab/stores/), with your service only.
  const stores = app && overrides.with ? [...overrides.with] : [];
  // The entry terminating TLS (--tls, lab/tls/flags.js), HTTP/2 too (--http2).
  const tls = overrides.tls ?? null;
  const custom = [
    app ? `app ${app.name}` : null,
    tls ? (tls.http2 ? 'http2' : 'tls') : null,
    stores.length ? `with ${stores.join(', ')}` : null,
    counts,
    edgeCount,
    kind,
    method,
    edgeKindText,
  ]
    .filter(Boolean)
    .join(', ');
  return Object.freeze({
    name: preset.name,
    label: custom ? `${preset.name} (${custom})` : preset.name,
    description: preset.description,
    replicas,
    workers,
    edges,
    // The kind of the caching edges (lab/kinds/), when there are edges.
    edgeKind: edges ? edgeKind : null,
    balancer: Object.freeze(balancer),
    app,
    tls,
    stores: Object.freeze(stores),
    ...(stores.length
      ? {
          storeOptions: Object.freeze({
            keepData: Boolean(overrides['keep-data']),
            maxConnections: overrides['db-max-connections'] ?? 100,
          }),
        }
      : {}),
    ...(app && overrides['app-setup'] ? { appSetup: overrides['app-setup'] } : {}),
  });
}

const names = () => PRESETS.map((p) => p.name);

const COURSE = PRESETS.filter((p) => p.course);

module.exports = {
  resolveDeployment,
  COURSE,
  reachesAllFromOneClient,
  PRESETS,
  BALANCER,
  KINDS,
  METHOD_NAMES,
  LIMITS,
  names,
  allNames: () => Object.keys(byName),
};
