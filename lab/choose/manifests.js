'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { composeProject, containerConfig, configNodes, IMAGES, INNER } = require('../topology/compose-file');
const { appImage, appContainer, writeAppContext } = require('../app/image');
const { labError } = require('../../common/errors');
const { need } = require('../capacity/usl');
const { dump } = require('../topology/compose-write');
const { composeProblems, kubernetesProblems } = require('./validate');
const { ROOT } = require('../paths');
const { sub } = require('../topology/container-parts');
const { NODE } = require('../node-base');

// The chosen deployment written out for the user's own platform: a compose project (the lab's
// own, as its compose engine runs it, with each replica's CPU share and memory as
// deploy.resources limits) and Kubernetes manifests (a Deployment, a Service and a
// HorizontalPodAutoscaler). Each is checked against its schema before it is written
// (./validate.js); one that is not valid is a failure of the lab's, never written as if it were.

// A Kubernetes name: lower case, digits and dashes, 63 at most.
const k8sName = (name) =>
  String(name)
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 50) || 'service';

// Memory as Kubernetes says it: whole MiB, rounded up to 8.
const mi = (mib) => `${Math.max(16, Math.ceil(mib / 8) * 8)}Mi`;
// A request's memory over what a replica was measured to use at its largest (RSS): room for
// the heap to grow between collections; the limit twice what was measured.
const MEMORY_REQUEST = 1.25;
const MEMORY_LIMIT = 2;
// Without a measurement (a check that did not run): a Node process's usual floor.
const MEMORY_DEFAULT_MIB = 128;

// The HPA's numbers, from the capacity per replica and the target rate:
//   minReplicas: the count chosen (it holds the target rate with its headroom);
//   maxReplicas: the fewest predicted to hold twice the target rate with the same headroom,
//     never past the curve's peak (more replicas hold less there), at least minReplicas;
//   averageUtilization: the replicas' CPU (of their request) measured on the chosen count at
//     the rate with its headroom (./checks.js), so that up to that rate the autoscaler keeps
//     minReplicas, and at the target rate it comes back to it; between 20 and 90%. Without
//     a measurement: DEFAULT_TARGET, a CPU utilization like any HPA's, said as such
//     (targetFrom) - never a ratio of rates, which no autoscaler reads.
const DEFAULT_TARGET = 70;
// The HPA's scale-down stabilization window: a minute, not Kubernetes' five, so that its check
// (./autoscale-check.js) sees it come back within the run.
const DOWN_WINDOW_S = 60;
const MAX_DOWN_WINDOW_S = 3600;

// The HPA's maximum: the fewest replicas of the chosen shape predicted to hold `rate` (twice the
// target with its headroom), or the most the curve is worth (its peak, else --max-replicas).
// Without a fit: the fewest counts measured to hold `rate`, else the most measured (an "at
// least", out of a fit, still held that much), never under the count chosen (issue 82).
function hpaMaxOf(c, rate, maxReplicas) {
  if (c.fit) {
    const f = { sigma: c.fit.sigma, kappa: c.fit.kappa, lambda: c.fit.lambda, peak: c.fit.peak };
    return need(f, rate, maxReplicas) ?? (f.peak ? Math.floor(f.peak.replicas) : maxReplicas);
  }
  const measured = (c.points || []).filter((p) => p.maxRate !== null && p.replicas <= maxReplicas);
  const holding = measured.filter((p) => p.maxRate >= rate).map((p) => p.replicas);
  if (holding.length) return Math.max(c.replicas, Math.min(...holding));
  return Math.max(c.replicas, ...measured.map((p) => p.replicas));
}
function hpaOf(choice, { utilizationPct, maxReplicas, downWindowS = DOWN_WINDOW_S }) {
  const measured = Number.isFinite(utilizationPct);
  const target = Math.round(Math.min(90, Math.max(20, measured ? utilizationPct : DEFAULT_TARGET)));
  return {
    minReplicas: choice.replicas,
    maxReplicas: Math.max(choice.replicas, maxReplicas),
    target,
    targetFrom: measured ? 'measured' : 'default',
    downWindowS,
  };
}

// The Kubernetes objects. c: { name, image, port, command?, env, replicas, cpuPerReplica,
// memoryMiB, health (a path, or null: the port answering is ready), hpa: { minReplicas,
// maxReplicas, target } }.
function kubernetesObjects(c) {
  const name = k8sName(c.name);
  const labels = { app: name, 'app.kubernetes.io/managed-by': 'node-deploy-lab' };
  const cpu = `${Math.round(c.cpuPerReplica * 1000)}m`;
  const memoryMiB = c.memoryMiB ?? MEMORY_DEFAULT_MIB;
  const probe = (periodSeconds, failureThreshold) => ({
    ...(c.health ? { httpGet: { path: c.health, port: c.port } } : { tcpSocket: { port: c.port } }),
    periodSeconds,
    failureThreshold,
  });
  const deployment = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels },
    spec: {
      replicas: c.replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels },
        spec: {
          containers: [
            {
              name,
              image: c.image,
              ...(c.command ? { command: c.command } : {}),
              ports: [{ containerPort: c.port, name: 'http' }],
              env: Object.entries(c.env).map(([k, v]) => ({ name: k, value: String(v) })),
              resources: {
                requests: { cpu, memory: mi(memoryMiB * MEMORY_REQUEST) },
                limits: { cpu, memory: mi(memoryMiB * MEMORY_LIMIT) },
              },
              readinessProbe: probe(2, 3),
              livenessProbe: { ...probe(10, 6), initialDelaySeconds: 10 },
            },
          ],
        },
      },
    },
  };
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, labels },
    spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
  };
  const hpa = {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name, labels },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name },
      minReplicas: c.hpa.minReplicas,
      maxReplicas: c.hpa.maxReplicas,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: c.hpa.target } },
        },
      ],
      behavior: { scaleDown: { stabilizationWindowSeconds: c.hpa.downWindowS ?? DOWN_WINDOW_S } },
    },
  };
  return [deployment, service, hpa];
}

// The container of the service as Kubernetes runs it: your service's image (the lab's build
// of it: docker build it from compose/app, and push it where the cluster pulls from), or the
// lab's own service.
function containerOf(deployment) {
  const workers = deployment.workers;
  if (deployment.app) {
    const c = appContainer(deployment.app, { workers, port: INNER.service });
    return { name: deployment.app.name, image: appImage(deployment.app), command: c.command, env: c.environment };
  }
  return {
    name: 'node-deploy-lab-service',
    image: IMAGES.service,
    command: null,
    env: { PORT: INNER.service, WORKERS: workers },
  };
}

// The compose project of the chosen deployment, with its caps as deploy.resources limits (the
// Compose Specification's form; docker-compose 1.x applies them with --compatibility) and
// without the lab's monitoring services.
// The lab's own instruments in a service's environment (its runtime probe and the monitoring
// it reports to): not the user's deployment.
const LAB_ONLY_ENV = [
  'NODE_OPTIONS',
  'LAB_PROBE',
  'LAB_PROBE_NODE',
  'LAB_PROBE_OPTIONS',
  'LAB_PROBE_ADDRESS',
  'LAB_PROBE_PROFILE',
];
function withoutLabProbe(service) {
  if (!service.environment) return service;
  const environment = Object.fromEntries(
    Object.entries(service.environment).filter(
      ([k, v]) => !LAB_ONLY_ENV.includes(k) || (k === 'NODE_OPTIONS' && !/LAB_PROBE/.test(String(v))),
    ),
  );
  return { ...service, environment };
}

// o.memoryMiB: a replica's memory as measured; its limit is the Kubernetes file's (the same
// multiple), so both files give a replica the same room.
function composeOf(deployment, caps, dir, { memoryMiB = null } = {}) {
  const confs = {};
  const files = {};
  for (const { node } of configNodes(deployment)) {
    const rel = `${node}.conf`;
    files[rel] = containerConfig(deployment, { node });
    confs[node] = `./${rel}`;
  }
  const appContext = deployment.app ? './app' : null;
  const { services } = composeProject(deployment, { root: ROOT, confs, caps, appContext });
  // (The lab's monitoring services are those of its `monitoring` profile.)
  const kept = Object.entries(services).filter(([, s]) => !s.profiles?.includes('monitoring'));
  const memoryLimit = Math.round((memoryMiB ?? MEMORY_DEFAULT_MIB) * MEMORY_LIMIT);
  const replicaMemory = (name, s) =>
    /^replica-\d+$/.test(name) && s.mem_limit === undefined ? { ...s, mem_limit: memoryLimit * 2 ** 20 } : s;
  const project = {
    services: Object.fromEntries(
      kept.map(([name, s]) => [name, deployLimits(replicaMemory(name, withoutLabProbe(s)))]),
    ),
  };
  return { project, files, appContext: deployment.app ? path.join(dir, 'app') : null };
}

// A choice made on another Node than the lab's (choose --node): the images the compose file
// builds are built on that Node's base and named for it, so what runs is what was measured
// (and an image built on the lab's Node keeps its own name).
const nodeTag = (image, version) => `${image}-node${version}`;
function onNode(project, version) {
  if (!version || version === NODE) return project;
  const services = Object.fromEntries(
    Object.entries(project.services).map(([name, s]) => {
      if (!s.build?.args?.BASE_IMAGE) return [name, s];
      return [
        name,
        {
          ...s,
          ...(s.image ? { image: nodeTag(s.image, version) } : {}),
          build: {
            ...s.build,
            args: { ...s.build.args, BASE_IMAGE: sub('LAB_BASE_IMAGE', `node:${version}-bookworm-slim`) },
          },
        },
      ];
    }),
  );
  return { ...project, services };
}

// A service's caps (composeLimits: cpus, mem_limit, memswap_limit) as deploy.resources.limits.
function deployLimits(service) {
  const { cpus, mem_limit: mem, ...rest } = service;
  if (cpus === undefined && mem === undefined) return service;
  delete rest.memswap_limit;
  const limits = { ...(cpus !== undefined ? { cpus } : {}), ...(mem !== undefined ? { memory: `${mem}b` } : {}) };
  return { ...rest, deploy: { resources: { limits } } };
}

// Writes both under dir (compose/ and kubernetes/), each checked against its schema first.
// Returns { files: [relative paths], kubernetes: the objects }.
function writeManifests(dir, { deployment, caps, replicas, cpuPerReplica, memoryMiB, hpa, node = null }) {
  const built = composeOf(deployment, caps, path.join(dir, 'compose'), { memoryMiB });
  const compose = { ...built, project: onNode(built.project, node) };
  const composeBad = composeProblems(compose.project);
  const container = { ...containerOf(deployment) };
  if (node && node !== NODE) container.image = nodeTag(container.image, node);
  const objects = kubernetesObjects({
    ...container,
    port: INNER.service,
    replicas,
    cpuPerReplica,
    memoryMiB,
    health: deployment.app ? deployment.app.health : '/healthz',
    hpa,
  });
  const k8sBad = objects.flatMap(kubernetesProblems);
  if (composeBad.length || k8sBad.length) {
    throw labError('LAB_ERR_MANIFEST', [...composeBad, ...k8sBad].slice(0, 5).join('; '));
  }
  const written = [];
  const put = (rel, text) => {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
    written.push(rel);
  };
  const how = deployment.app
    ? `# Your service's image is built from ./app (a copy of your service with the lab's cluster primary): docker-compose build\n`
    : '';
  put(
    'compose/docker-compose.yml',
    `# The deployment chosen by \`npm run choose\`: ${deployment.label}, each replica held to ${cpuPerReplica} of a core.\n# docker compose -f docker-compose.yml up -d   (docker-compose 1.x: add --compatibility for the limits)\n${how}${dump(compose.project)}`,
  );
  for (const [rel, text] of Object.entries(compose.files)) put(`compose/${rel}`, text);
  if (compose.appContext) {
    writeAppContext(deployment.app, compose.appContext, path.join(ROOT, 'lab', 'app', 'primary.js'));
    written.push('compose/app/');
  }
  put(
    'kubernetes/deployment.yml',
    `# The deployment chosen by \`npm run choose\`, for Kubernetes: ${replicas} replica(s) of ${cpuPerReplica} of a core.\n# Image: ${container.image}${deployment.app ? ' (build it from ../compose/app and push it where your cluster pulls from)' : " (the lab's service image: docker-compose -f ../compose/docker-compose.yml build)"}\n# kubectl apply -f deployment.yml\n${objects.map((o) => dump(o)).join('---\n')}`,
  );
  return { files: written, kubernetes: objects, compose: compose.project };
}

module.exports = {
  writeManifests,
  kubernetesObjects,
  composeOf,
  hpaOf,
  hpaMaxOf,
  DOWN_WINDOW_S,
  MAX_DOWN_WINDOW_S,
  k8sName,
  MEMORY_REQUEST,
  MEMORY_LIMIT,
};
