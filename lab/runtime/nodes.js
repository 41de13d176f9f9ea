'use strict';

const { parents } = require('../ownership/procs');
const { readPm2Pid } = require('./pm2-pid');

// The nodes of a local deployment as the resource sampler sees them, like cAdvisor's
// containers: each nginx of the graph (master and workers: the entry, the caching edges),
// each replica (its primary and, for multi-worker
// replicas, each worker on its own too), the black boxes. Re-read every tick from pm2's pid
// files, so a replica that pm2 restarted is followed under its new pid.
function deploymentNodes(state) {
  return () => {
    const roots = {};
    // The lab's own nginx processes (pm2's daemon is the lab's, not the deployment's).
    for (const [name, pid] of Object.entries(state.pids || {})) if (name !== 'pm2' && pid) roots[name] = pid;
    const pmap = parents();
    for (const p of state.processes || []) {
      const pid = readPm2Pid(state.pm2Home, p.name) || p.pid;
      roots[p.name] = pid;
      if (p.name.startsWith('replica-') && state.deployment.workers > 1) {
        const workers = [...pmap]
          .filter(([, pp]) => pp === pid)
          .map(([c]) => c)
          .sort((a, b) => a - b);
        workers.forEach((w, i) => (roots[`${p.name}.worker-${i + 1}`] = w));
      }
    }
    return roots;
  };
}

module.exports = deploymentNodes;
