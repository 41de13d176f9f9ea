'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { KINDS, BALANCERS, EDGES } = require('../../../lab/kinds');
const { resolveDeployment, METHOD_NAMES } = require('../../../lab/topology/deployments');
const { buildGraph } = require('../../../lab/topology/graph');
const { composeProject, containerConfig, configNodes } = require('../../../lab/topology/compose-file');
const { stackProject } = require('../../../lab/topology/stack-file');
const { dump } = require('../../../lab/topology/compose-write');
const { whereIs } = require('../../../lab/programs/install');
const { ROOT } = require('../../helper');
const { onlyWith, onlyWithProgram } = require('../../requires');

// Every kind of lab/kinds/, from the table alone: what a kind file must say, and that the
// config it renders is one its own program accepts, locally, in a container and on a swarm.
const RUNTIMES = ['local', 'compose', 'swarm'];
// (With a space in it: a state folder whose path has one must render configs its program takes.)
const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'kinds with space-'));
const withConfig = Object.values(KINDS).filter((k) => k.config && !k.nginx);

describe('the kinds table', () => {
  test.each(Object.values(KINDS).map((k) => [k.name, k]))('%s says what it is, where it runs and how', (name, k) => {
    expect(fs.existsSync(path.join(ROOT, 'lab', 'kinds', `${name}.js`))).toBe(true);
    expect(['balancer', 'edge']).toContain(k.role);
    expect(k.runtimes.length).toBeGreaterThan(0);
    for (const r of k.runtimes) expect(RUNTIMES).toContain(r);
    for (const m of k.methods) expect(METHOD_NAMES).toContain(m);
    expect(typeof k.what).toBe('string');
    expect(typeof k.label).toBe('string');
    if (k.runtimes.includes('local') && k.node !== null) expect(Boolean(k.local || k.nginx)).toBe(true);
    if (k.runtimes.includes('compose')) expect(Boolean(k.compose || k.container)).toBe(true);
    if (k.role === 'edge') expect(typeof k.cache.mark).toBe('function');
  });

  test('balancers: nginx first (the default) and none last; the edges include nginx and varnish', () => {
    expect(BALANCERS[0].name).toBe('nginx');
    expect(BALANCERS.at(-1).name).toBe('none');
    expect(BALANCERS.map((k) => k.name)).toEqual(expect.arrayContaining(['haproxy', 'haproxy-l4', 'caddy']));
    expect(EDGES.map((k) => k.flag || k.name).sort()).toEqual(['nginx', 'varnish']);
  });

  test('a method a kind cannot do falls back to its own; the label names the kinds chosen', () => {
    expect(resolveDeployment('cdn', { balancer: 'node' }).balancer.method).toBe('round-robin');
    expect(resolveDeployment('cdn', { balancer: 'haproxy' }).balancer.method).toBe('hash');
    expect(resolveDeployment('cdn', { edgeKind: 'varnish' }).label).toBe('cdn (varnish edges)');
    expect(resolveDeployment('cdn', { edgeKind: 'varnish' }).edgeKind).toBe('varnish');
    expect(buildGraph(resolveDeployment('replicated', { balancer: 'caddy' })).entry).toBe('caddy');
  });
});

// A context as the local runtime makes it, for a kind's node of `deployment`.
function localCtx(kind, deployment, dir) {
  const graph = buildGraph(deployment, {
    bbox1: 20001,
    bbox2: 20002,
    hub: 20003,
    entry: 20000,
    replicas: Array.from({ length: deployment.replicas }, (_, i) => 20010 + i),
    edges: Array.from({ length: deployment.edges }, (_, i) => 20050 + i),
  });
  const node = graph.nodes.find((n) => n.kind === kind.name);
  const prefix = path.join(dir, node.name);
  fs.mkdirSync(prefix, { recursive: true });
  return {
    deployment,
    node,
    listen: { host: '127.0.0.1', port: node.port },
    upstreams: node.upstreams.map((u) => `127.0.0.1:${graph.nodes.find((n) => n.name === u).port}`),
    paths: {
      prefix,
      confFile: path.join(prefix, kind.confFile),
      pidFile: path.join(prefix, 'pid'),
      workDir: path.join(prefix, 'work'),
    },
    container: false,
    connections: 8192,
    bin: kind.bin ? whereIs(kind.bin.name) : null,
  };
}
const deploymentFor = (k, method) =>
  k.role === 'edge'
    ? resolveDeployment('cdn', { edgeKind: k.flag || k.name })
    : resolveDeployment('replicated', { balancer: k.name, method });

describe.each(withConfig.map((k) => [k.name, k]))('the %s config', (name, k) => {
  const methods = k.role === 'edge' ? ['round-robin'] : k.methods;
  test.each(methods)('locally, with %s: every field filled', (method) => {
    const ctx = localCtx(k, deploymentFor(k, method), tmp());
    const text = k.config(ctx);
    expect(text).not.toMatch(/\{\{|undefined|NaN/);
    for (const u of ctx.upstreams) expect(text).toContain(u.split(':')[1]);
  });

  // Its own check of the config: with its program, which the set-up installs (missing, it is a
  // failure where the set-up ran as root, a counted skip elsewhere: ../../requires.js).
  const withProgram = k.bin ? onlyWithProgram(k.bin.name, k.bin.package) : test;
  const checked = (ctx, text) => {
    fs.writeFileSync(ctx.paths.confFile, text);
    const { command, args } = k.check(ctx);
    const r = spawnSync(command, args, { encoding: 'utf8', timeout: 30000 });
    expect({ status: r.status, out: r.status ? `${r.stderr}${r.stdout}`.slice(-500) : '' }).toEqual({
      status: 0,
      out: '',
    });
  };
  for (const method of methods)
    withProgram(`locally, with ${method}: its own check accepts it`, () => {
      const ctx = localCtx(k, deploymentFor(k, method), tmp());
      checked(ctx, k.config(ctx));
    });

  // (A kind that terminates no TLS, or runs on no swarm, has no such test: nothing to skip.)
  if (k.tls && k.config) {
    withProgram('--tls and --http2: the config its own check accepts, the certificate quoted', () => {
      const { makeCerts } = require('../../../lab/tls/certs');
      for (const http2 of [false, true]) {
        const ctx = localCtx(k, deploymentFor(k), tmp());
        const certs = makeCerts(path.join(ctx.paths.prefix, 'tls dir'));
        ctx.tls = { cert: certs.cert, key: certs.key, pem: certs.pem, http2 };
        const text = k.config(ctx);
        // (HAProxy reads the certificate and key in one file; Caddy, the two.)
        expect(text).toMatch(/tls dir\/server\.(crt|pem)"/);
        checked(ctx, text);
      }
    });
  }

  if (k.runtimes.includes('swarm')) {
    test('on a swarm: the tasks found by DNS, no address written in', () => {
      const text = containerConfig(deploymentFor(k), { node: k.node, stack: true });
      expect(text).toContain('tasks.service');
      expect(text).not.toMatch(/\{\{|127\.0\.0\.1(?!\d)/); // (127.0.0.11 is Docker's DNS)
    });
  }
});

// Each kind that runs in containers, as docker-compose reads the project (and the stack).
describe.each(
  Object.values(KINDS)
    .filter((k) => k.runtimes.includes('compose'))
    .map((k) => [k.name, k]),
)('the %s kind in containers', (name, k) => {
  onlyWith('docker-compose')('its compose project (and stack) validates; only the entry is published', () => {
    const dir = tmp();
    const d = deploymentFor(k);
    const confs = {};
    for (const { node, file } of configNodes(d)) {
      confs[node] = path.join(dir, file);
      fs.writeFileSync(confs[node], containerConfig(d, { node }));
    }
    const project = composeProject(d, { root: ROOT, confs });
    // (The monitoring profile's Grafana and Graphite are published too, for the user.)
    const published = Object.entries(project.services).filter(([, s]) => s.ports && !s.profiles);
    expect(published.map(([n]) => n)).toEqual([buildGraph(d).entry]);
    const file = path.join(dir, 'compose.yml');
    fs.writeFileSync(file, dump(project));
    const env = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    const r = spawnSync('docker-compose', ['-f', file, 'config', '-q'], { encoding: 'utf8', env });
    expect({ status: r.status, err: r.stderr }).toEqual({ status: 0, err: '' });
  });

  // The stack, for a kind that runs on a swarm (the others have none).
  if (!k.runtimes.includes('swarm')) return;
  onlyWith('docker-compose')('its stack validates; the entry published on the host', () => {
    const dir = tmp();
    const d = deploymentFor(k);
    const env = { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' };
    const stackConfs = {};
    for (const { node, file: f } of configNodes(d)) {
      stackConfs[node] = path.join(dir, `stack-${f}`);
      fs.writeFileSync(stackConfs[node], containerConfig(d, { node, stack: true }));
    }
    const stack = stackProject(d, { confs: stackConfs, publish: 8080 });
    const entry = buildGraph(d).entry;
    expect(stack.services[entry].ports).toEqual([{ target: 8080, published: 8080, protocol: 'tcp', mode: 'host' }]);
    const sfile = path.join(dir, 'stack.yml');
    fs.writeFileSync(sfile, dump(stack));
    const s = spawnSync('docker-compose', ['-f', sfile, 'config', '-q'], { encoding: 'utf8', env });
    // (Compose 1.29 warns that a stack's configs are swarm's; its exit status is what counts.)
    expect({ status: s.status, err: s.status ? s.stderr : '' }).toEqual({ status: 0, err: '' });
  });
});
