'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The kinds of node that stand in front of the replicas: balancers (the entry) and caching
// edges, one file each in this folder. Each file says everything about its kind: its name,
// layer, the runtimes it runs on, its config (from its template), how it starts locally,
// its container service, and how the drawing labels it. Adding a kind is adding a file
// (and its template); flags, help texts, runtimes, renderers and tests read this table.
const KINDS = {};
for (const file of fs.readdirSync(__dirname).sort()) {
  if (file === 'index.js' || !file.endsWith('.js')) continue;
  const kind = require(path.join(__dirname, file));
  if (KINDS[kind.name]) throw new Error(`two kinds named ${kind.name}`);
  KINDS[kind.name] = kind;
}
Object.freeze(KINDS);

// The order users see: nginx (the default) first, none last, the others by name.
const rank = (k) => (k.name === 'nginx' ? 0 : k.name === 'none' ? 2 : 1);
const ORDER = (a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name);
const BALANCERS = Object.freeze(
  Object.values(KINDS)
    .filter((k) => k.role === 'balancer')
    .sort(ORDER),
);
const EDGES = Object.freeze(Object.values(KINDS).filter((k) => k.role === 'edge'));
// --edge-kind takes the short names (nginx, varnish).
const EDGE_BY_FLAG = Object.freeze(Object.fromEntries(EDGES.map((k) => [k.flag || k.name, k])));

const kindOf = (name) => {
  const k = KINDS[name];
  if (!k) throw new Error(`unknown kind ${name}`);
  return k;
};

// Whether one client, probing through the balancer, can reach every replica: not without a
// balancer, nor when an L4 one hashes on the client's address (every probe comes from one).
const reachesAllFromOneClient = (b) => b.kind !== 'none' && !(b.method === 'hash' && kindOf(b.kind).layer === 4);

// The kinds' own daemons on this host (a kind's host.daemon: the lab's nginx masters), each
// once: what a local deployment's down looks for in its state folder besides pm2's.
const DAEMON_HOSTS = Object.freeze([
  ...new Set(
    Object.values(KINDS)
      .map((k) => k.host)
      .filter((h) => h?.daemon),
  ),
]);

module.exports = { KINDS, BALANCERS, EDGES, EDGE_BY_FLAG, DAEMON_HOSTS, kindOf, reachesAllFromOneClient };
