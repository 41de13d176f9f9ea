'use strict';

const path = require('node:path');
const { ROOT } = require('../../paths');
const { proxyHost } = require('./proxy-process');

// What every proxy kind shares: where its templates are, the lab's proxy settings as one
// object (the deployment row's `balancer`: keep-alive, passive health, retries), and the
// ports inside containers.
const TEMPLATES = path.join(ROOT);
const template = (...parts) => path.join(TEMPLATES, ...parts);

// Inside a container every proxy listens on this port and reaches replicas on 3000.
const INNER = Object.freeze({ proxy: 8080, service: 3000 });

// The open-file limit a proxy process may count on here (hard limit 20,000 on this kind of
// machine, and a proxied connection holds two descriptors).
const MAX_CONNECTIONS = 9000;

// A kind's definition, checked once when the table is built: a kind file missing a part
// fails the lab's start (and its tests), not a run half-way.
const ROLES = ['balancer', 'edge'];
function defineKind(kind) {
  const need = ['name', 'role', 'what', 'label', 'runtimes'];
  for (const k of need) if (kind[k] === undefined) throw new Error(`kind ${kind.name || '?'}: no ${k}`);
  if (!ROLES.includes(kind.role)) throw new Error(`kind ${kind.name}: role must be one of ${ROLES.join(', ')}`);
  if (kind.runtimes.includes('local') && !kind.local && !kind.host && kind.layer !== null) {
    throw new Error(`kind ${kind.name}: runs locally but says not how (local or host)`);
  }
  // What it needs of Debian (apt) and where its program is (bins), declared once: a kind with
  // a program of its own (bin) says so there; the nginx kinds share theirs (./nginx.js).
  const programs =
    kind.programs ?? (kind.bin ? { apt: [kind.bin.package], bins: [kind.bin.path] } : { apt: [], bins: [] });
  // How it runs on this host (lab/runtime/local.js asks it): its own (the nginx kinds', a
  // daemon of the lab's), or in the foreground under pm2 as kind.local(ctx) says.
  const host = kind.host ?? (kind.local ? proxyHost(kind) : null);
  // Its config file's name among a deployment's container configs.
  const confName = kind.confName ?? ((node) => `${node}-${kind.confFile}`);
  // Whether it can terminate TLS (--tls), and why not: an L4 kind passes bytes.
  const tlsWhy = kind.tls
    ? null
    : kind.layer === 4
      ? `${kind.name} balances TCP (L4): it passes the bytes through and cannot terminate TLS; use an L7 kind (nginx, haproxy, caddy, node)`
      : kind.layer === null
        ? `${kind.name} is no entry: there is nothing to terminate TLS; use an L7 kind (nginx, haproxy, caddy, node)`
        : `${kind.name} does not terminate TLS here`;
  return Object.freeze({
    methods: ['round-robin'],
    node: kind.name,
    ...kind,
    tls: Boolean(kind.tls),
    tlsWhy,
    programs,
    host,
    confName,
  });
}

module.exports = { defineKind, template, INNER, MAX_CONNECTIONS };
