'use strict';

const { kindOf } = require('../kinds');
const { INNER: PROXY } = require('../kinds/common/proxy');
const { buildGraph, nodeOf, proxyNodes } = require('./graph');
const { labError } = require('../../common/errors');
const { appImage, appContainer } = require('../app/image');
const { IMAGES, INNER, sub, probeEnvOf, storeEnvOf, composeLimits, replicaNames } = require('./container-parts');

// The container form of a deployment: the same row of lab/topology/deployments.js becomes a compose
// project (nginx in front of R replicas of W workers, the black boxes, and the monitoring
// stack under the `monitoring` profile) or a swarm stack. Built as data here and written
// as YAML by lab/topology/compose-write.js, so compose/ never drifts from the local runtime.

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
        'LAB_ERR_NOT_ON_ENGINE',
        `--balancer ${kind.name}`,
        `it runs on the ${kind.runtimes.join(' or ')} engine, not compose`,
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
  containerConfig,
  configNodes,
  composeLimits,
  statsdConfig,
  replicaNames,
  IMAGES,
  INNER,
};
