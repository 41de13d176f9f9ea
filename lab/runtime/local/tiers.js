'use strict';

const { STORES } = require('../../stores');
const { kindOf } = require('../../kinds');
const { nodeOf } = require('../../topology/graph');
const { appSetup } = require('../../app/setup');
const { entryProbe, upstreamOf } = require('../readiness');
const { waitStore } = require('./stores');
const { SERVICE_START_MS } = require('./ready');

// How the local runtime starts a deployment's nodes: each kind's starter under pm2, and the
// tiers in order, each healthy before the next (`rt`: the LocalRuntime).

// How each kind of node starts under pm2 (app: pm2AppOf's); a proxy kind that is a daemon
// of its own (the nginx kinds) starts apart, as its kind says (host.start).
function startersOf(rt, { pm2, app, options, hubToken, replicaStart, stores }) {
  return {
    bbox: (node) =>
      pm2.start(
        app(node.name, 'bbox/index.js', {
          args: [
            '--port',
            String(node.port),
            '--host',
            rt.host,
            '--key',
            options.bbox?.key ?? '',
            ...(options.bbox?.args || []),
          ],
        }),
      ),
    // A replica (the lab's service, or yours: --app) as lab/runtime/replica-start.js says;
    // a replica added later (npm run scale, --autoscale, a rollout) starts the same way.
    service: (node) => pm2.start(app(node.name, ...replicaStart(node))),
    app: (node) => pm2.start(app(node.name, ...replicaStart(node))),
    // A data store (--with, lab/stores/): its server in the foreground, from its folder.
    store: (node) => {
      const s = stores[node.name];
      const { command, args } = s.store.command({ ...s.ctx, fresh: s.fresh });
      return pm2.start(app(node.name, null, { command, args, cwd: s.ctx.dir, kill_timeout: 10000 }));
    },
    hub: (node) =>
      pm2.start(
        app(node.name, 'hub/index.js', {
          env: { HOST: '127.0.0.1', PORT: String(node.port), HUB_TOKEN: hubToken },
          // It stops at once on SIGTERM (hub/index.js).
          kill_timeout: 2000,
        }),
      ),
  };
}

// The nodes in order, each tier healthy before the next: the data stores (--with), your
// service's set-up (--app-setup), the black boxes, the hub, the replicas, the caching
// edges, then the entry balancer.
async function startTiers(rt, state, { startNode, pm2, stores, storeEnv, address, urlOf }) {
  const { deployment, graph, ports } = state;
  const tier = (kind) => graph.nodes.filter((n) => n.kind === kind);

  const yours = deployment.app;
  // The data stores first (--with), ready before anything that uses them; then your
  // service's own set-up (--app-setup) once, with their addresses.
  for (const name of deployment.stores || []) {
    const node = nodeOf(graph, name);
    rt.log(`starting ${STORES[name].what} (${name}) on port ${node.port}`);
    await startNode(node);
    await rt.recordProcesses(state, pm2);
    await waitStore(rt, name, stores[name], pm2);
  }
  if (deployment.appSetup) await rt.step(() => appSetup(yours, deployment.appSetup, storeEnv, rt.log));
  for (const node of tier('bbox')) await startNode(node);
  for (const node of tier('hub')) {
    await startNode(node);
    await rt.waitHealthy(node.name, `tcp://${address(node.name)}`);
  }
  for (const node of tier('service')) await startNode(node);
  rt.log(`waiting for every replica${yours ? ` of ${yours.name}` : ''} to be healthy`);
  for (const node of tier('service')) {
    if (yours) await rt.waitApp(yours, node, urlOf(node.name), pm2, !state.probe?.off);
    else
      // (Every worker seen: the lab's own service gets the start a service of yours gets by
      // default, 30 s. At 20 s a 3-worker replica once had not listened yet, with both cores
      // saturated by other runs.)
      await rt.waitHealthy(
        node.name,
        `${urlOf(node.name)}/healthz`,
        (a) => new Set(a.map((r) => r.headers['x-worker'])).size >= node.workers,
        SERVICE_START_MS,
      );
  }
  if (!yours) {
    await rt.waitHealthy('bbox1', `http://${rt.host}:${ports.bbox1}/`);
    await rt.waitHealthy('bbox2', `http://${rt.host}:${ports.bbox2}/`, () => true, 30000);
  }

  // Through each caching edge, then the entry (lab/runtime/readiness.js): the lab's
  // service says which replica answered (X-Instance); for yours, the kinds at L7 name the
  // upstream they used (X-Lab-Upstream, lab/kinds/).
  const probe = entryProbe(deployment);
  const instances = (a) => new Set(a.map((r) => (yours ? upstreamOf(r) : r.headers['x-instance']))).size;
  const edges = graph.nodes.filter((n) => n.roles.includes('edge'));
  if (edges.length) rt.log(`starting ${edges.length} caching edge(s) (${kindOf(edges[0].kind).what})`);
  for (const node of edges) await startNode(node);
  for (const node of edges) {
    await rt.waitHealthy(
      node.name,
      (i) => probe.url(urlOf(node.name), i),
      (a) => instances(a) >= deployment.replicas,
      20000,
      yours,
    );
  }

  if (graph.entry) {
    const entry = nodeOf(graph, graph.entry);
    rt.log(`starting the balancer: ${kindOf(entry.kind).what}`);
    await startNode(entry);
    await rt.waitHealthy(entry.name, (i) => probe.url(state.url, i), probe.until, 20000, yours);
  }
}

module.exports = { startersOf, startTiers };
