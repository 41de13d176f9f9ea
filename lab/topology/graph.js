'use strict';

// A deployment as a small graph: the nodes it is made of, each with the roles a --cap can
// name, its kind (what starts it), its port and the nodes it forwards to. The local runtime
// starts it, the sampler watches it, the drawing, `status` and the caps read it; nothing
// else knows the deployment's shape.
//
//   clients -> [entry balancer] -> [edge tier] -> replicas (x workers) -> black boxes
//
// Kinds:
//   service     the Express service (a pm2 app; node:cluster workers when workers > 1)
//   bbox        the two black boxes (one pm2 app, two ports)
//   nginx       the entry balancer, nginx at L7 (HTTP)
//   nginx-l4    the entry balancer, nginx's stream module (TCP)
//   node        the entry balancer, the lab's own (balancer/, a pm2 app)
//   nginx-edge  a caching edge: nginx with proxy_cache in front of the replicas
//   hub         the signaling rooms' registry (hub/), when there is more than one service
//               process: a room's participants may land on any worker of any replica
const { KINDS } = require('./deployments');

// The entry node keeps the name the course's results use for it: `nginx` when nginx is the
// balancer, `balancer` when it is the lab's own.
const entryName = (kind) => ({ node: 'balancer', mesh: 'mesh' })[kind] || 'nginx';

// ports: from lab/ports.planPorts (local); without them (containers, where every node has
// the same inner port) the nodes carry no port.
function buildGraph(deployment, ports = null) {
  const edges = deployment.edges || 0;
  if (!ports) {
    ports = { replicas: Array(deployment.replicas).fill(null), edges: Array(edges).fill(null) };
  }
  const replicaRoles = edges ? ['replica', 'backend'] : ['replica'];
  const nodes = [
    {
      name: 'bbox',
      roles: ['bbox'],
      kind: 'bbox',
      port: ports.bbox1 ?? null,
      ports: [ports.bbox1 ?? null, ports.bbox2 ?? null],
    },
  ];
  const hub = deployment.replicas * deployment.workers > 1;
  if (hub) nodes.push({ name: 'hub', roles: ['hub'], kind: 'hub', port: ports.hub ?? null });
  const replicas = ports.replicas.map((port, i) => ({
    name: `replica-${i + 1}`,
    roles: replicaRoles,
    kind: 'service',
    port,
    workers: deployment.workers,
    upstreams: hub ? ['bbox', 'hub'] : ['bbox'],
  }));
  nodes.push(...replicas);
  const edgeNodes = Array.from({ length: edges }, (_, i) => (ports.edges || [])[i] ?? null).map((port, i) => ({
    name: `edge-${i + 1}`,
    roles: ['edge'],
    kind: 'nginx-edge',
    port,
    upstreams: replicas.map((r) => r.name),
  }));
  nodes.push(...edgeNodes);
  const front = edgeNodes.length ? edgeNodes : replicas;
  const { kind } = deployment.balancer;
  let entry = null;
  if (kind !== 'none') {
    entry = entryName(kind);
    nodes.push({
      name: entry,
      roles: ['balancer'],
      kind,
      port: ports.nginx ?? null,
      upstreams: front.map((n) => n.name),
    });
  }
  return Object.freeze({
    nodes,
    entry,
    // Where clients go: the entry, or (no balancer) every node of the front tier.
    front: entry ? [entry] : front.map((n) => n.name),
  });
}

const nodeOf = (graph, name) => graph.nodes.find((n) => n.name === name);
const isNginx = (node) => node.kind === 'nginx' || node.kind === 'nginx-l4' || node.kind === 'nginx-edge';
// Every name a --cap may use: each role, and each node's own name.
const capNames = (graph) => [...new Set(graph.nodes.flatMap((n) => [...n.roles, n.name]))];
const describeEntry = (deployment) => KINDS[deployment.balancer.kind].what;

module.exports = { buildGraph, nodeOf, isNginx, capNames, entryName, describeEntry };
