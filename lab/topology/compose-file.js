'use strict';

const { kindOf } = require('../kinds');
const { INNER: PROXY } = require('../kinds/common/proxy');
const { version } = require('../../package.json');
const { buildGraph, nodeOf, proxyNodes } = require('./graph');
const { labError } = require('../../common/errors');
const { appImage, appContainer } = require('../app/image');
const { storesEnv } = require('../stores');

// The container form of a deployment: the same row of lab/topology/deployments.js becomes a compose
// project (nginx in front of R replicas of W workers, the black boxes, and the monitoring
// stack under the `monitoring` profile) or a swarm stack. Built as data here and written
// as YAML by lab/topology/compose-write.js, so compose/ never drifts from the local runtime.

// Pinned images. Ours take their base as a build argument (LAB_BASE_IMAGE) so a machine
// without a registry can build them from a base it made itself; nginx's image can be
// swapped the same way (LAB_NGINX_IMAGE).
const IMAGES = Object.freeze({
  nodeBase: 'node:20.20.2-bookworm-slim',
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

// The data stores (--with, lab/stores/) as containers: an image each, built on the lab's base
// (compose/stores/NAME/), healthy when it answers; your service's environment names them by
// their service names, as the local runtime gives it their addresses.
function storeServices(deployment, root) {
  const out = {};
  for (const name of deployment.stores || []) {
    out[name] = {
      image: IMAGES[name],
      build: {
        context: `${root}/compose/stores/${name}`,
        args: { BASE_IMAGE: sub('LAB_BASE_IMAGE', IMAGES.nodeBase) },
      },
      init: true,
      ...(name === 'postgres'
        ? { environment: { MAX_CONNECTIONS: String(deployment.storeOptions?.maxConnections ?? 100) } }
        : {}),
    };
  }
  return out;
}
const STORE_ROLES = { postgres: 'database', redis: 'cache' };
// The runtime probe (probe/preload.js, lab/probe/env.js) in the service's containers: what
// NODE_OPTIONS preloads and where it sends, both from the engine's environment (the lab's
// runtimes set them at each deploy; empty, as in compose/*.yml, it is not loaded at all).
const probeEnvOf = (nodeName) => ({
  NODE_OPTIONS: sub('LAB_PROBE_OPTIONS', ''),
  LAB_PROBE: sub('LAB_PROBE_ADDRESS', ''),
  LAB_PROBE_NODE: nodeName,
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

// The lab's own nodes: the black boxes, the reference service, the signaling hub.
function labKinds(deployment, root, build) {
  return {
    bbox: () => ({
      image: IMAGES.bbox,
      build: build('bbox/Dockerfile'),
      init: true,
      environment: { BBOX_KEY: sub('LAB_KEY', '') },
      volumes: [`${root}/bbox/config.properties:/config/config.properties:ro`],
    }),
    service: (node) => ({
      image: IMAGES.service,
      build: build('service/Dockerfile'),
      init: true,
      environment: {
        INSTANCE: node.name,
        WORKERS: String(node.workers),
        PORT: String(INNER.service),
        BBOX1_URL: `http://bbox:${INNER.bbox1}`,
        BBOX2_URL: `http://bbox:${INNER.bbox2}`,
        HEAVY_MS: sub('LAB_HEAVY_MS', '5000'),
        // The monitoring profile's StatsD. Without it the name does not resolve and the
        // service drops its metrics (UDP, never awaited): requests are unaffected.
        STATSD_HOST: sub('LAB_STATSD_HOST', 'graphite'),
        STATSD_PORT: String(INNER.statsd),
        // One level under lab., as the dashboard's `run` variable expects; LAB_RUN lines it
        // up with the scenario's --run-name so both sides show under one run.
        STATSD_PREFIX: `lab.${sub('LAB_RUN', `compose-${deployment.name}`)}.service`,
        // Signaling rooms shared across the replicas' processes (hub/).
        ...(node.upstreams.includes('hub')
          ? { SIGNAL_HUB: `hub:${INNER.hub}`, SIGNAL_HUB_TOKEN: sub('LAB_HUB_TOKEN', '') }
          : {}),
        ...probeEnvOf(node.name),
      },
      depends_on: {
        bbox: { condition: 'service_healthy' },
        ...(node.upstreams.includes('hub') ? { hub: { condition: 'service_healthy' } } : {}),
      },
    }),
    // The signaling hub runs from the service's image (it holds hub/ too).
    hub: () => ({
      image: IMAGES.service,
      build: build('service/Dockerfile'),
      init: true,
      command: ['node', 'hub/index.js'],
      // On the project's network only (never published); the token when the lab runs it.
      environment: { HOST: '0.0.0.0', PORT: String(INNER.hub), HUB_TOKEN: sub('LAB_HUB_TOKEN', '') },
      // The image's health check asks the service's /healthz, which the hub does not serve:
      // healthy is accepting TCP, since a replica connects to it once, at start.
      healthcheck: {
        test: [
          'CMD',
          'node',
          '-e',
          `require('net').connect(${INNER.hub}, '127.0.0.1').on('connect', () => process.exit(0)).on('error', () => process.exit(1))`,
        ],
        interval: '2s',
        timeout: '2s',
        retries: 15,
      },
    }),
  };
}

// Your service (--app): its own image, its own command, PORT; nothing of the lab's.
function appKind(deployment, appContext, stores) {
  const app = deployment.app;
  const appBuild = { context: appContext, args: { BASE_IMAGE: sub('LAB_BASE_IMAGE', IMAGES.nodeBase) } };
  const storeDeps = Object.fromEntries(Object.keys(stores).map((n) => [n, { condition: 'service_healthy' }]));
  return (node) => {
    const c = appContainer(app, { workers: node.workers, port: INNER.service });
    return {
      image: appImage(app),
      build: appBuild,
      init: true,
      ...c,
      environment: { ...storeEnvOf(deployment), ...probeEnvOf(node.name), ...c.environment },
      healthcheck: { disable: true },
      ...(Object.keys(storeDeps).length || deployment.appSetup
        ? {
            depends_on: {
              ...storeDeps,
              ...(deployment.appSetup ? { setup: { condition: 'service_completed_successfully' } } : {}),
            },
          }
        : {}),
    };
  };
}

// Your service's own set-up (--app-setup): a one-off container of its image.
function setupService(deployment, appContext, stores) {
  const app = deployment.app;
  return {
    image: appImage(app),
    // (Built as the replicas' image is, the same tag: compose pulls an image a service
    // does not build, from a registry this machine may not reach.)
    build: { context: appContext, args: { BASE_IMAGE: sub('LAB_BASE_IMAGE', IMAGES.nodeBase) } },
    init: true,
    command: ['/bin/sh', '-c', deployment.appSetup],
    environment: storeEnvOf(deployment),
    restart: 'no',
    depends_on: Object.fromEntries(Object.keys(stores).map((n) => [n, { condition: 'service_healthy' }])),
  };
}

// `root`: the repository as seen from the compose file (build context, mounted files);
// `confs`: { node: its rendered config file } for every proxy node (lab/kinds/), same
// convention; `caps`: per node, from lab/topology/caps.js. Every service is a node of the
// deployment's graph (lab/topology/graph.js), under its name.
// `appContext`: the build context of your service's image (lab/app/image.js), with --app.
// `graph`: the deployment's graph as it stands, when its replicas changed since it was made
// (lab/runtime/compose-replicas.js); else the deployment's own.
function composeProject(deployment, { root = '..', confs = {}, caps = {}, appContext = null, graph = null } = {}) {
  graph = graph ?? buildGraph(deployment);
  const app = deployment.app ?? null;
  const build = (dockerfile) => ({
    context: root,
    dockerfile,
    args: { BASE_IMAGE: sub('LAB_BASE_IMAGE', IMAGES.nodeBase) },
  });
  // The Node images have a HEALTHCHECK; the proxies' have none, so the nodes in front of a
  // caching edge can only be waited for as started (the lab then probes through the entry).
  const after = (names) =>
    Object.fromEntries(
      names.map((n) => [
        n,
        {
          // (Your service has no health check of the lab's: it is waited for through the entry.)
          condition:
            ['service', 'bbox', 'hub'].includes(nodeOf(graph, n).kind) && !(app && nodeOf(graph, n).kind === 'service')
              ? 'service_healthy'
              : 'service_started',
        },
      ]),
    );
  // A proxy node (a balancer or an edge of lab/kinds/): its kind's own service, or the
  // kind's image running its config, mounted read-only.
  const proxyService = (node, kind) => {
    if (!kind.runtimes.includes('compose')) {
      throw labError(
        'LAB_ERR_USAGE',
        `--balancer ${kind.name} runs on the ${kind.runtimes.join(' or ')} engine, not compose`,
      );
    }
    const own = kind.compose
      ? kind.compose({ node, images: IMAGES, build })
      : {
          image: sub(kind.container.imageEnv, kind.container.image),
          init: true,
          command: kind.container.command(kind.container.conf),
          volumes: [`${confs[node.name]}:${kind.container.conf}:ro`],
        };
    return {
      ...own,
      depends_on: after(node.upstreams),
      // The entry is published, on loopback only unless LAB_BIND says otherwise.
      ...(node.name === graph.entry
        ? { ports: [`${sub('LAB_BIND', '127.0.0.1')}:${sub('LAB_PORT', '8080')}:${PROXY.proxy}`] }
        : {}),
    };
  };
  const kinds = labKinds(deployment, root, build);
  // Your service (--app): its own image, its own command, PORT; nothing of the lab's.
  const stores = storeServices(deployment, root);
  if (app) kinds.service = appKind(deployment, appContext, stores);
  const services = {};
  for (const node of graph.nodes) {
    const service = stores[node.name]
      ? stores[node.name]
      : kinds[node.kind]
        ? kinds[node.kind](node)
        : proxyService(node, kindOf(node.kind));
    services[node.name] = { ...service, ...composeLimits(caps[node.name]) };
  }
  // Your service's own set-up (--app-setup), once, from its image, when the stores are up;
  // the replicas wait for it to have ended well.
  if (app && deployment.appSetup) services.setup = setupService(deployment, appContext, stores);
  Object.assign(services, monitoringServices(root));
  // No top-level `name`: Compose 1.29 refuses it; the project name is given with -p.
  return { services };
}

// graphite-statsd (StatsD + carbon + graphite-web), Grafana with the lab's provisioning,
// and cAdvisor reporting every container's CPU and memory to StatsD.
function monitoringServices(root) {
  const profiles = ['monitoring'];
  return {
    graphite: {
      image: IMAGES.graphite,
      profiles,
      volumes: [
        `${root}/compose/monitoring/statsd/udp.js:/opt/statsd/config/udp.js:ro`,
        `${root}/compose/monitoring/graphite/storage-schemas.conf:/opt/graphite/conf/storage-schemas.conf:ro`,
        `${root}/compose/monitoring/graphite/storage-aggregation.conf:/opt/graphite/conf/storage-aggregation.conf:ro`,
      ],
      // graphite-web for Grafana, and carbon for the scenario runner's StatsD (--graphite).
      ports: ['127.0.0.1:${LAB_GRAPHITE_PORT:-8081}:80', '127.0.0.1:${LAB_CARBON_PORT:-2003}:2003'],
    },
    grafana: {
      image: IMAGES.grafana,
      profiles,
      environment: {
        GF_AUTH_ANONYMOUS_ENABLED: 'true',
        GF_AUTH_ANONYMOUS_ORG_ROLE: 'Viewer',
        GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH: '/var/lib/grafana/dashboards/lab-run.json',
      },
      volumes: [
        `${root}/compose/monitoring/grafana/provisioning:/etc/grafana/provisioning:ro`,
        `${root}/compose/monitoring/grafana/dashboards:/var/lib/grafana/dashboards:ro`,
      ],
      ports: ['127.0.0.1:${LAB_GRAFANA_PORT:-3000}:3000'],
      depends_on: ['graphite'],
    },
    cadvisor: {
      image: IMAGES.cadvisor,
      profiles,
      command: [
        '-storage_driver=statsd',
        `-storage_driver_host=graphite:${INNER.statsd}`,
        // gauges.cadvisor.<container>.<stat>: the dashboard's container panels.
        '-storage_driver_db=cadvisor',
        '-storage_driver_buffer_duration=1s',
        '-docker_only=true',
      ],
      volumes: [
        '/:/rootfs:ro',
        '/var/run:/var/run:ro',
        '/sys:/sys:ro',
        '/var/lib/docker/:/var/lib/docker:ro',
        '/dev/disk/:/dev/disk:ro',
      ],
      depends_on: ['graphite'],
    },
  };
}

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
      'LAB_ERR_USAGE',
      `--balancer ${kind.name} runs on the ${kind.runtimes.join(' or ')} engine, not swarm`,
    );
  }
  if (deployment.edges) throw labError('LAB_ERR_USAGE', 'caching edges run on the local and compose engines, for now');
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

function replicaNames(deployment) {
  return Array.from({ length: deployment.replicas }, (_, i) => `replica-${i + 1}`);
}

// A proxy node's config inside a container (lab/kinds/): for the compose project, its
// upstreams by service name; on a swarm (`stack`), the entry finds the tasks of the
// `service` service through swarm's DNS. `node`: the entry's or a caching edge's name.
function containerConfig(deployment, { stack = false, node = 'nginx', graph = null } = {}) {
  graph = graph ?? buildGraph(deployment);
  const n = nodeOf(graph, node);
  const kind = kindOf(n.kind);
  const inner = (name) => `${name}:${nodeOf(graph, name).kind === 'service' ? INNER.service : PROXY.proxy}`;
  return kind.config({
    deployment,
    node: n,
    listen: { host: '0.0.0.0', port: PROXY.proxy },
    upstreams: n.upstreams.map(inner),
    tasks: stack ? `tasks.service:${INNER.service}` : null,
    container: true,
    connections: 8192,
  });
}

// The proxy nodes of a deployment that need a config file, with its name in a folder of
// container configs, as its kind names it (lab/kinds/).
const configNodes = (deployment) =>
  proxyNodes(buildGraph(deployment))
    .filter(({ kind }) => kind.config)
    .map(({ node, kind }) => ({
      node: node.name,
      kind,
      file: kind.confName(node.name),
    }));

// The StatsD config the graphite-statsd image reads: the lab's naming (counters., gauges.,
// timers. at the root, no stats. prefix), which the Grafana dashboard expects, and the
// same 1 s flush as the local runs.
function statsdConfig() {
  return {
    port: INNER.statsd,
    flushInterval: 1000,
    percentThreshold: [50, 95, 99],
    deleteIdleStats: true,
    graphiteHost: '127.0.0.1',
    graphitePort: 2003,
    graphite: { legacyNamespace: false, globalPrefix: '' },
    backends: ['./backends/graphite'],
  };
}

module.exports = {
  composeProject,
  stackProject,
  stackPublishProject,
  containerConfig,
  configNodes,
  composeLimits,
  statsdConfig,
  replicaNames,
  IMAGES,
  INNER,
  PLACEMENTS,
};
