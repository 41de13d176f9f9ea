'use strict';

const { pick } = require('../names');
const { labError } = require('../../common/errors');

// The deployments the lab compares, as data: adding one means adding a row. Every one puts
// nginx in front, because the extra hop is part of what the course measured.
// The entry balancer's kinds: nginx at L7 (HTTP, the course's), or at L4 (TCP, the stream
// module: one client connection to one replica, nothing parsed).
// `engines`: where a kind can run (all three when not said).
const KINDS = Object.freeze({
  nginx: { layer: 7, what: 'nginx, HTTP (L7)' },
  'nginx-l4': { layer: 4, what: 'nginx, TCP (L4, stream module)', engines: ['local'] },
  // The lab's own small balancer (balancer/): round-robin only, an experiment subject.
  node: {
    layer: 7,
    what: "the lab's own balancer (node:http, round-robin)",
    methods: ['round-robin'],
    engines: ['local', 'swarm'],
  },
  // No balancer: clients go straight to the replicas (seed 001's NodePort line); the lab's
  // generators spread their requests over them, round-robin.
  none: {
    layer: null,
    what: 'no balancer (the generator spreads over the replicas)',
    methods: ['round-robin'],
    engines: ['local'],
  },
  // Swarm's routing mesh (seed 004's stage 2): the service's port published through the
  // ingress network, IPVS balancing connections over the tasks.
  mesh: { layer: 4, what: "swarm's routing mesh (ingress, IPVS)", methods: ['round-robin'], engines: ['swarm'] },
});

// How nginx picks a replica, and the directive that says it (round-robin is nginx's default).
// `hash` is consistent hashing on the URI at L7 (one URI always goes to the same replica, and
// only a share of them move when a replica comes or goes), on the client's address at L4,
// where there is no URI.
const METHODS = Object.freeze({
  'round-robin': { 7: '', 4: '' },
  least_conn: { 7: 'least_conn;', 4: 'least_conn;' },
  hash: { 7: 'hash $request_uri consistent;', 4: 'hash $remote_addr consistent;' },
});

const BALANCER = Object.freeze({
  kind: 'nginx',
  method: 'round-robin',
  // Idle connections nginx keeps open to each replica. Without them nginx reached ~0.5x of
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
    description: 'a balancer hashing URIs over 4 caching nginx edges in front of 2 backends',
  },
];

const LIMITS = { replicas: { min: 1, max: 32 }, workers: { min: 1, max: 32 }, edges: { min: 0, max: 16 } };

const byName = {};
for (const p of PRESETS) for (const n of [p.name, ...(p.aliases || [])]) byName[n] = p;

// Counts come checked from the flag schema (lab/cli/flags.js) or from the lab's own tables;
// this guards the ones that come from anywhere else.
function checkCount(kind, value) {
  const { min, max } = LIMITS[kind];
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw labError('LAB_ERR_USAGE', `--${kind} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return n;
}

// Whether one client, probing through the balancer, can reach every replica: not when L4
// hashes on its address (every probe comes from 127.0.0.1).
const reachesAllFromOneClient = (b) => b.kind !== 'none' && !(b.method === 'hash' && KINDS[b.kind].layer === 4);

// A deployment by name (or alias), with --replicas / --workers / --method overrides applied.
function resolveDeployment(name, overrides = {}) {
  const preset = pick('deployment', name, byName);
  const replicas = checkCount('replicas', overrides.replicas) ?? preset.replicas;
  const workers = checkCount('workers', overrides.workers) ?? preset.workers;
  const edges = checkCount('edges', overrides.edges) ?? preset.edges ?? 0;
  const balancer = { ...BALANCER, ...(preset.balancer || {}) };
  if (overrides.balancer !== undefined) balancer.kind = pick('balancer', overrides.balancer, Object.keys(KINDS));
  // A row's method (cdn hashes) that the chosen kind cannot do falls back to the kind's own.
  const allowed = KINDS[balancer.kind].methods || Object.keys(METHODS);
  if (!allowed.includes(balancer.method)) balancer.method = allowed[0];
  if (overrides.method !== undefined) {
    balancer.method = pick('method', overrides.method, KINDS[balancer.kind].methods || Object.keys(METHODS));
  }
  const counts = replicas !== preset.replicas || workers !== preset.workers ? `${replicas}x${workers}` : null;
  const edgeCount = edges !== (preset.edges ?? 0) ? `${edges} edge(s)` : null;
  const presetBalancer = { ...BALANCER, ...(preset.balancer || {}) };
  const kind = balancer.kind !== presetBalancer.kind ? balancer.kind : null;
  const method = balancer.method !== presetBalancer.method ? balancer.method : null;
  const custom = [counts, edgeCount, kind, method].filter(Boolean).join(', ');
  return Object.freeze({
    name: preset.name,
    label: custom ? `${preset.name} (${custom})` : preset.name,
    description: preset.description,
    replicas,
    workers,
    edges,
    balancer: Object.freeze(balancer),
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
  METHODS,
  LIMITS,
  names,
  allNames: () => Object.keys(byName),
};
