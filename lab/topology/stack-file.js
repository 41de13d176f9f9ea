'use strict';

const { kindOf } = require('../kinds');
const { INNER: PROXY } = require('../kinds/common/proxy');
const { buildGraph, nodeOf } = require('./graph');
const { labError } = require('../../common/errors');
const { appImage, appContainer } = require('../app/image');
const { IMAGES, INNER, sub, probeEnvOf, storeEnvOf } = require('./container-parts');

// The swarm form of a deployment (docker stack deploy): the same row of
// lab/topology/deployments.js as compose-file.js's project, as a stack of services with
// tasks found by DNS, limits per task and a placement; written as YAML by compose-write.js.

const STORE_ROLES = { postgres: 'database', redis: 'cache' };

// Swarm tasks are found by DNS (tasks.NAME, or NAME with dnsrr), not through a virtual IP: the
// lab's nginx asks for every task itself, and a kernel without IPVS has no VIPs at all.
const DNSRR = Object.freeze({ endpoint_mode: 'dnsrr' });

// The service's tasks: the lab's reference service, or your service (--app) from its own
// image built on the manager, or, on the lab's VM cluster (yoursMount: its folder on every
// node), the lab's runtime image running its files. Found by DNS (dnsrr), never a VIP.
function stackService(deployment, { registry, hub, limits, yoursMount }) {
  const app = deployment.app ?? null;
  const service = {
    image: `${registry}${IMAGES.service}`,
    environment: {
      // Swarm fills in the task's slot: the same replica-N names as the other runtimes.
      INSTANCE: 'replica-{{.Task.Slot}}',
      ...(hub ? { SIGNAL_HUB: `hub:${INNER.hub}`, SIGNAL_HUB_TOKEN: sub('LAB_HUB_TOKEN', '') } : {}),
      WORKERS: String(deployment.workers),
      PORT: String(INNER.service),
      BBOX1_URL: `http://bbox:${INNER.bbox1}`,
      BBOX2_URL: `http://bbox:${INNER.bbox2}`,
      STATSD_HOST: 'graphite',
      STATSD_PORT: String(INNER.statsd),
      STATSD_PREFIX: 'lab.stack.service',
      ...probeEnvOf('replica-{{.Task.Slot}}'),
    },
    networks: ['lab'],
    deploy: {
      ...DNSRR,
      replicas: deployment.replicas,
      resources: { limits, reservations: { cpus: '0.25', memory: '128M' } },
      restart_policy: { condition: 'any', delay: '1s' },
      update_config: { parallelism: 1, order: 'start-first' },
    },
  };
  if (app) {
    const where = yoursMount ? { root: '/srv/app', primary: '/app/lab/app/primary.js' } : {};
    const c = appContainer(app, { workers: deployment.workers, port: INNER.service, ...where });
    Object.assign(service, {
      image: yoursMount ? `${registry}${IMAGES.service}` : `${registry}${appImage(app)}`,
      ...c,
      environment: { ...probeEnvOf('replica-{{.Task.Slot}}'), ...c.environment },
      ...(yoursMount ? { working_dir: '/srv/app' } : {}),
      healthcheck: { disable: true },
    });
  }
  return service;
}

// A data store's task (--with): one, found by name on the stack's network.
function stackStore(name, deployment, registry, limitsOf) {
  return {
    image: `${registry}${IMAGES[name]}`,
    ...(name === 'postgres'
      ? { environment: { MAX_CONNECTIONS: String(deployment.storeOptions?.maxConnections ?? 100) } }
      : {}),
    networks: ['lab'],
    deploy: {
      ...DNSRR,
      replicas: 1,
      resources: { limits: limitsOf(STORE_ROLES[name], { cpus: '1.0', memory: '1G' }) },
    },
  };
}

// The entry balancer's task: its kind's own stack service, or the kind's image running its
// config (a swarm config, added to configs).
function stackEntry(entry, kind, { registry, confs, configs, publish, limits }) {
  const ctx = {
    node: entry,
    images: { ...IMAGES, service: `${registry}${IMAGES.service}` },
    tasks: `tasks.service:${INNER.service}`,
  };
  const own = kind.stack
    ? kind.stack(ctx)
    : {
        image: sub(kind.container.imageEnv, kind.container.image),
        command: kind.container.command(kind.container.conf),
        configs: [{ source: `${entry.name}_conf`, target: kind.container.conf }],
      };
  if (!kind.stack) configs[`${entry.name}_conf`] = { file: confs[entry.name] };
  return {
    ...own,
    // Published only when asked (host mode: on the node that runs it, no mesh in between).
    // Swarm ignores a host address on a published port and listens on every interface of
    // every node (moby/moby#32299), so loopback-only cannot be had; compose/stack.yml
    // leaves publishing to an explicit second file, stackPublishProject below.
    ...(publish ? { ports: [{ target: PROXY.proxy, published: publish, protocol: 'tcp', mode: 'host' }] } : {}),
    networks: ['lab'],
    deploy: { replicas: 1, resources: { limits } },
  };
}

// The swarm stack: one service with `replicas` tasks of `workers` workers each, CPU and
// memory limits per task, an overlay network, the entry balancer of the deployment's kind
// finding the tasks by DNS (lab/kinds/). caps: per role (lab/topology/caps.js), as
// deploy.resources.limits: `replica` for the service's tasks, `balancer` for the entry,
// `bbox` for the black boxes. confs: { entry: its rendered config file }. publish: the
// node's port the entry is published on (host mode), or none (compose/stack.yml, where
// compose/stack-publish.yml says it). placement (a swarm of several nodes): `spread` (the
// entry on the manager, whose address clients use; the rest where swarm puts it), `apart`
// (the servers on the workers only, away from the entry, as seed 004 ran them on other VMs),
// `manager-only` (everything on the manager); none: swarm decides everything.
const PLACEMENTS = Object.freeze(['spread', 'apart', 'manager-only']);
function stackProject(
  deployment,
  {
    limits = { cpus: '1.0', memory: '512M' },
    confs = {},
    caps = {},
    publish = null,
    placement = null,
    appMount = null,
    yoursMount = null,
  } = {},
) {
  const limitsOf = (role, fallback) => {
    const c = caps[role];
    if (!c) return fallback;
    return {
      ...fallback,
      ...(c.cpuPct !== null ? { cpus: String(c.cpuPct / 100) } : {}),
      ...(c.memoryBytes !== null ? { memory: `${Math.round(c.memoryBytes / 1024)}K` } : {}),
    };
  };
  // Swarm does not build: the images come from a registry every node reaches (a single
  // node uses its own images).
  const registry = sub('LAB_REGISTRY', '');
  const graph = buildGraph(deployment);
  const { hub } = graph;
  const kind = kindOf(deployment.balancer.kind);
  if (!kind.runtimes.includes('swarm')) {
    throw labError(
      'LAB_ERR_NOT_ON_ENGINE',
      `--balancer ${kind.name}`,
      `it runs on the ${kind.runtimes.join(' or ')} engine, not swarm`,
    );
  }
  if (deployment.edges)
    throw labError('LAB_ERR_NOT_ON_ENGINE', 'caching edges', 'they run on the local and compose engines, for now');
  const app = deployment.app ?? null;
  const service = stackService(deployment, { registry, hub, limits: limitsOf('replica', limits), yoursMount });
  const services = {
    bbox: {
      image: `${registry}${IMAGES.bbox}`,
      // (The image's own command; said here, so that an image holding the whole lab runs it.)
      command: ['node', 'bbox/index.js'],
      networks: ['lab'],
      deploy: { ...DNSRR, replicas: 1, resources: { limits: limitsOf('bbox', { cpus: '1.0', memory: '512M' }) } },
    },
    ...(hub && !app
      ? {
          hub: {
            image: `${registry}${IMAGES.service}`,
            command: ['node', 'hub/index.js'],
            environment: { HOST: '0.0.0.0', PORT: String(INNER.hub), HUB_TOKEN: sub('LAB_HUB_TOKEN', '') },
            healthcheck: { disable: true },
            networks: ['lab'],
            deploy: { ...DNSRR, replicas: 1, resources: { limits: { cpus: '0.5', memory: '128M' } } },
          },
        }
      : {}),
    service,
  };
  const configs = {};
  const entry = graph.entry && nodeOf(graph, graph.entry);
  if (entry && !kind.stackTransform)
    services[entry.name] = stackEntry(entry, kind, {
      registry,
      confs,
      configs,
      publish,
      limits: limitsOf('balancer', { cpus: '1.0', memory: '256M' }),
    });
  services.graphite = {
    image: IMAGES.graphite,
    networks: ['lab'],
    deploy: { replicas: 1, resources: { limits: { cpus: '1.0', memory: '1G' } } },
  };
  // The black boxes serve the lab's own service only.
  if (app) delete services.bbox;
  // Its data stores (--with): one task each, found by name on the stack's network, their
  // addresses in your service's environment. (Swarm orders nothing: --app-setup is refused
  // on it, and your service waits on its stores as it would in production.)
  for (const name of deployment.stores || []) services[name] = stackStore(name, deployment, registry, limitsOf);
  if (app && deployment.stores?.length) service.environment = { ...storeEnvOf(deployment), ...service.environment };
  const on = (where) => ({ placement: { constraints: [`node.role == ${where}`] } });
  const pin = (name, where) => {
    if (services[name]) services[name].deploy = { ...services[name].deploy, ...on(where) };
  };
  // On the lab's VM cluster the lab's code is a folder every node mounts (appMount): the
  // Node tasks run it as /app (lab/cluster/lab-image.js).
  if (appMount) {
    for (const svc of Object.values(services)) {
      if (String(svc.image).includes('node-deploy-lab-')) {
        svc.volumes = [`${appMount}/app:/app:ro`, `${appMount}/config:/config:ro`];
      }
    }
    if (app && yoursMount) service.volumes = [...(service.volumes || []), `${yoursMount}:/srv/app:ro`];
  }
  if (placement && graph.entry) pin(graph.entry, 'manager');
  if (placement === 'apart') pin('service', 'worker');
  if (placement === 'manager-only') for (const name of Object.keys(services)) pin(name, 'manager');
  const stack = {
    version: '3.8',
    services,
    networks: { lab: { driver: 'overlay', attachable: true } },
    ...(Object.keys(configs).length ? { configs } : {}),
  };
  return kind.stackTransform ? kind.stackTransform(stack, { port: publish }) : stack;
}

// The opt-in that publishes the stack's entry point (and only it) on every node, on
// ${LAB_PORT:-8080}: `docker stack deploy -c stack.yml -c stack-publish.yml lab`.
function stackPublishProject() {
  return {
    version: '3.8',
    services: {
      nginx: { ports: [{ target: PROXY.proxy, published: '${LAB_PORT:-8080}', protocol: 'tcp', mode: 'ingress' }] },
    },
  };
}

module.exports = { stackProject, stackPublishProject, PLACEMENTS };
