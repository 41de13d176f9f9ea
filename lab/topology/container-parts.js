'use strict';

const { version } = require('../../package.json');
const { NODE_BASE } = require('../node-base');
const { storesEnv } = require('../stores');

// What the compose project (compose-file.js) and the swarm stack (stack-file.js) both say of
// a container: the pinned images, the ports inside, the engine's overridable values, the
// runtime probe's and the stores' environment, a cap as limits, the replicas' names.

// Pinned images. Ours take their base as a build argument (LAB_BASE_IMAGE) so a machine
// without a registry can build them from a base it made itself; nginx's image can be
// swapped the same way (LAB_NGINX_IMAGE). Their Node is the lab's own (../node-base.js).
const IMAGES = Object.freeze({
  nodeBase: NODE_BASE,
  graphite: 'graphiteapp/graphite-statsd:1.1.10-5',
  grafana: 'grafana/grafana:11.3.0',
  cadvisor: 'gcr.io/cadvisor/cadvisor:v0.49.1',
  service: `node-deploy-lab-service:${version}`,
  bbox: `node-deploy-lab-bbox:${version}`,
  postgres: `node-deploy-lab-postgres:${version}`,
  redis: `node-deploy-lab-redis:${version}`,
});

// Ports inside the containers; only nginx's (and the dashboards') are published.
const INNER = Object.freeze({
  nginx: 8080,
  service: 3000,
  bbox1: 9090,
  bbox2: 9091,
  statsd: 8125,
  hub: 7070,
  postgres: 5432,
  redis: 6379,
});

// The runtime probe (probe/preload.js, lab/probe/env.js) in the service's containers: what
// NODE_OPTIONS preloads and where it sends, both from the engine's environment (the lab's
// runtimes set them at each deploy; empty, as in compose/*.yml, it is not loaded at all).
const probeEnvOf = (nodeName) => ({
  NODE_OPTIONS: sub('LAB_PROBE_OPTIONS', ''),
  LAB_PROBE: sub('LAB_PROBE_ADDRESS', ''),
  LAB_PROBE_NODE: nodeName,
  LAB_PROBE_PROFILE: sub('LAB_PROBE_PROFILE', ''),
});
const storeEnvOf = (deployment) => storesEnv(deployment.stores || [], (name) => ({ host: name, port: INNER[name] }));

// A value the engine's environment may override: ${NAME:-fallback}.
const sub = (name, fallback) => `\${${name}:-${fallback}}`;
// A cap (lab/topology/caps.js) as compose says it: cpus in cores, memory in bytes, no swap past it.
function composeLimits(cap) {
  if (!cap) return {};
  return {
    // Docker refuses --cpus beside a period: with one, the quota is said in its terms.
    ...(cap.cpuPct !== null && !cap.periodUs ? { cpus: String(cap.cpuPct / 100) } : {}),
    ...(cap.cpuPct !== null && cap.periodUs
      ? { cpu_period: cap.periodUs, cpu_quota: Math.round((cap.cpuPct / 100) * cap.periodUs) }
      : {}),
    ...(cap.memoryBytes !== null ? { mem_limit: cap.memoryBytes, memswap_limit: cap.memoryBytes } : {}),
  };
}

function replicaNames(deployment) {
  return Array.from({ length: deployment.replicas }, (_, i) => `replica-${i + 1}`);
}

module.exports = { IMAGES, INNER, sub, probeEnvOf, storeEnvOf, composeLimits, replicaNames };
