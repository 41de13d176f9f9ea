'use strict';

const table = require('./table');

// The table `deploy` and `status` print: one row per process the lab owns.
function processTable(status) {
  const ports = status.ports;
  // The graph names every node's ports (local); containers publish the entry's only.
  const node = (name) => (status.graph?.nodes || []).find((n) => n.name === name);
  const portOf = (name) => {
    const n = node(name);
    if (n && n.port != null) return n.ports ? n.ports.join(',') : n.port;
    if (name === status.graph?.entry) return ports.entry;
    // Containers publish the entry's port only: the others are on the project's network.
    if (name === 'bbox') return ports.bbox1 ? `${ports.bbox1},${ports.bbox2}` : null;
    const m = /^replica-(\d+)$/.exec(name);
    return m && ports.replicas ? ports.replicas[Number(m[1]) - 1] : null;
  };
  const rows = status.live.map((p) => ({
    ...p,
    port: portOf(p.name),
    status: p.restarted ? `${p.status} (restarted)` : p.status,
  }));
  // A swarm of several nodes: which node runs each task (no pid of this machine's there).
  const onNodes = status.live.some((p) => p.node);
  return table(rows, [
    ['name', 'process'],
    ...(onNodes ? [['node', 'node']] : []),
    ['pid', 'pid'],
    ['port', 'port'],
    ['status', 'status'],
    ['children', 'children'],
    ['memoryMiB', 'MiB (tree)'],
  ]);
}

module.exports = processTable;
