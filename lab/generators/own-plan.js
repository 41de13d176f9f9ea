'use strict';

const { flag } = require('../terminal/flags');
const { MODEL_FEATURES } = require('./plugin');

// What the lab's own engines (fast, closed) share: their flags, and their plan of a scenario
// model (lab/scenario/model.js), which the engine threads run (./fast-worker.js).
const OWN_FLAGS = Object.freeze({
  keepalive: { ...flag.bool(), help: 'reuse connections (default: a new one per request, as Artillery)' },
  pipelining: {
    ...flag.int(1, 64),
    needs: { flags: ['keepalive'], why: 'requests are pipelined on a connection that stays open' },
    help: 'up to N requests in flight on a kept-alive connection (default 1; as autocannon -p)',
  },
  'generator-workers': {
    ...flag.int(1, 64),
    help: 'the engine threads (default: one per 3,000 arrivals/s, at most one a core)',
  },
  connections: { ...flag.int(1, 10000), help: 'concurrent connections, each a virtual user (default 10)' },
  requests: { ...flag.int(1, 100000000), help: 'stop after N virtual users (N requests of a one-request scenario)' },
  'tls-resume': {
    ...flag.enum(['on', 'off'], 'TLS resumption'),
    // (--target: an https:// one, checked by the command: a capacity search's levels run so.)
    needs: {
      flags: ['tls', 'http2', 'tls-cert', 'target'],
      why: 'resumption is of TLS sessions, and the entry speaks plain HTTP',
    },
    help: "on an https:// target: resume the last handshake's session (on, the default, as clients do), or a full handshake every time (off)",
  },
  streams: {
    ...flag.int(1, 1000),
    needs: {
      flags: ['http2', 'target'],
      why: "streams are HTTP/2's; over HTTP/1.1 a connection carries one request at a time",
    },
    help: 'on an HTTP/2 target (--http2): N requests in flight on each connection, as streams (default 1)',
  },
});

// What both engines run: every feature of the scenario model, several targets, load nodes
// (fast adds arrival rates).
const OWN_SUPPORTS = Object.freeze([...MODEL_FEATURES, 'targets', 'load-nodes']);

// The model travels to the engine threads (and to load nodes) as plain data.
function ownPlan(model, ctx) {
  return {
    target: ctx.target,
    targets: ctx.targets || null,
    model: JSON.parse(JSON.stringify(model)),
    timeoutMs: model.timeoutS * 1000,
    keepalive: ctx.values.keepalive,
    pipelining: ctx.values.pipelining || 1,
    workers: ctx.values['generator-workers'],
    name: model.name,
    // An https:// target (--tls): the CA to trust, resumption, HTTP/2 (lab/run/generation.js).
    tls: ctx.tls
      ? {
          ca: ctx.tls.ca,
          insecure: ctx.tls.insecure,
          resume: ctx.values['tls-resume'] !== 'off',
          http2: ctx.tls.http2,
          streams: ctx.values.streams ?? null,
        }
      : null,
  };
}

module.exports = { ownPlan, OWN_FLAGS, OWN_SUPPORTS };
