'use strict';

// A deployment as a small graph: the nodes it is made of, each with the roles a --cap can
// name, its kind (what starts it), its port and the nodes it forwards to. The runtimes
// start it, the sampler watches it, the drawing, `status`, the renderers and the caps read
// it; nothing else knows the deployment's shape.
//
//   clients -> [entry balancer] -> [edge tier] -> replicas (x workers) -> black boxes
//
// Kinds of node:
//   service     the Express service (node:cluster workers when workers > 1), or the user's
//               own service (deployment.app: --app), which has no black boxes or hub
//   bbox        the two black boxes (one process, two ports)
//   hub         the signaling rooms' registry (hub/), when there is more than one service
//               process: a room's participants may land on any worker of any replica
//   and the balancer and edge kinds of lab/kinds/ (nginx, haproxy, caddy, nginx-edge, ...).
const { kindOf } = require('../kinds');
const { STORES } = require('../stores');

// The kinds of node that are not proxies of lab/kinds/: the lab's programs, the stores.
const OWN_KINDS = ['service', 'bbox', 'hub', ...Object.keys(STORES)];

// Whether a deployment has a hub: more than one process of the lab's service shares
// signaling rooms (a user's service has no signaling of the lab's).
const needsHub = (deployment) => !deployment.app && deployment.replicas * deployment.workers > 1;

// ports: from lab/topology/ports.js planPorts (local); without them (containers, where every
// node has the same inner port) the nodes carry no port.
function buildGraph(deployment, ports = null) {
  const edges = deployment.edges || 0;
  if (!ports) {
    ports = { replicas: Array(deployment.replicas).fill(null), edges: Array(edges).fill(null) };
  }
  const replicaRoles = edges ? ['replica', 'backend'] : ['replica'];
  const app = deployment.app ?? null;
  // The black boxes serve the lab's own service's /bbox1 and /bbox2 only.
  const nodes = app
    ? []
    : [
        {
          name: 'bbox',
          roles: ['bbox'],
          kind: 'bbox',
          port: ports.bbox1 ?? null,
          ports: [ports.bbox1 ?? null, ports.bbox2 ?? null],
        },
      ];
  const hub = needsHub(deployment);
  if (hub) nodes.push({ name: 'hub', roles: ['hub'], kind: 'hub', port: ports.hub ?? null });
  // The data stores your service shares (--with): started first, each one node.
  const stores = deployment.stores || [];
  for (const name of stores) {
    nodes.push({ name, roles: [STORES[name].role, name], kind: name, port: ports[name] ?? null });
  }
  const replicas = ports.replicas.map((port, i) => ({
    name: `replica-${i + 1}`,
    roles: replicaRoles,
    kind: 'service',
    port,
    workers: deployment.workers,
    upstreams: app ? [...stores] : hub ? ['bbox', 'hub'] : ['bbox'],
    ...(app ? { app: app.name } : {}),
  }));
  nodes.push(...replicas);
  const edgeKind = deployment.edgeKind || 'nginx-edge';
  const edgeNodes = Array.from({ length: edges }, (_, i) => (ports.edges || [])[i] ?? null).map((port, i) => ({
    name: `edge-${i + 1}`,
    roles: ['edge'],
    kind: edgeKind,
    port,
    upstreams: replicas.map((r) => r.name),
  }));
  nodes.push(...edgeNodes);
  const front = edgeNodes.length ? edgeNodes : replicas;
  const kind = kindOf(deployment.balancer.kind);
  let entry = null;
  if (kind.node) {
    entry = kind.node;
    nodes.push({
      name: entry,
      roles: ['balancer'],
      kind: kind.name,
      port: ports.entry ?? null,
      upstreams: front.map((n) => n.name),
    });
  }
  return Object.freeze({
    nodes,
    entry,
    // Where clients go: the entry, or (no balancer) every node of the front tier.
    front: entry ? [entry] : front.map((n) => n.name),
    replicas: replicas.length,
    workers: deployment.workers,
    hub,
  });
}

const nodeOf = (graph, name) => graph.nodes.find((n) => n.name === name);
// The nodes that are proxies of lab/kinds/ (a balancer or an edge), with their kind.
const proxyNodes = (graph) =>
  graph.nodes.filter((n) => !OWN_KINDS.includes(n.kind)).map((n) => ({ node: n, kind: kindOf(n.kind) }));
// How a proxy node runs on this host (its kind's host: lab/kinds/); null for the lab's own.
const proxyHostOf = (node) => (OWN_KINDS.includes(node.kind) ? null : kindOf(node.kind).host);
// Every name a --cap may use: each role, and each node's own name.
const capNames = (graph) => [...new Set(graph.nodes.flatMap((n) => [...n.roles, n.name]))];
const describeEntry = (deployment) => kindOf(deployment.balancer.kind).what;

// The name of a deployment's entry node (the balancer's, per its kind), or null when it has none.
const entryOf = (deployment) => buildGraph(deployment).entry;

// The graph a runtime starts is the one its command's plan built (placeDeployment in
// lab/runtime/deploy-plan.js): the caps were resolved against it, and the runtime, the sampler
// and the reports read that same object, never one built again.
function plannedGraph(options) {
  if (!options?.graph) throw new Error("a runtime's up() takes the plan's graph (options.graph, from placeDeployment)");
  return options.graph;
}

module.exports = {
  buildGraph,
  plannedGraph,
  entryOf,
  nodeOf,
  proxyNodes,
  proxyHostOf,
  capNames,
  describeEntry,
  needsHub,
  OWN_KINDS,
};
