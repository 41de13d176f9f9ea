'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const yaml = require('js-yaml');
const { ROOT } = require('../helper');
const { composeFiles } = require('../../lab/topology/compose-write');
const { PRESETS } = require('../../lab/topology/deployments');
const { IMAGES } = require('../../lab/topology/container-parts');

// The Node the lab runs on, as the lock file pins it: every image's base is that Node's.
const pinnedNode = () =>
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package-lock.json'), 'utf8')).packages['node_modules/node'].version;

const dir = path.join(ROOT, 'compose');
const files = composeFiles();
// stack-publish.yml only adds a port to stack.yml: it is checked with it, not alone.
const ymls = Object.keys(files).filter((f) => f.endsWith('.yml') && f !== 'stack-publish.yml');
const load = (rel) => yaml.load(fs.readFileSync(path.join(dir, rel), 'utf8'));

describe('compose/', () => {
  test('the committed files are exactly what `npm run compose:render` writes', () => {
    for (const [rel, text] of Object.entries(files)) {
      expect({ file: rel, text: fs.readFileSync(path.join(dir, rel), 'utf8') }).toEqual({ file: rel, text });
    }
  });

  test('one compose file per deployment, plus the swarm stack', () => {
    expect(ymls.sort()).toEqual([...PRESETS.map((p) => `${p.name}.yml`), 'stack.yml'].sort());
    expect(Object.keys(files)).toContain('stack-publish.yml');
  });

  test('every published port binds 127.0.0.1 unless LAB_BIND says otherwise; the stack publishes none', () => {
    for (const rel of ymls.filter((f) => f !== 'stack.yml')) {
      for (const [name, svc] of Object.entries(load(rel).services)) {
        for (const port of svc.ports || []) {
          expect({ rel, name, port }).toEqual({
            rel,
            name,
            port: expect.stringMatching(/^(\$\{LAB_BIND:-)?127\.0\.0\.1/),
          });
        }
      }
    }
    // Swarm ignores a host address on a published port (moby/moby#32299): no port unless the
    // user adds the opt-in file.
    for (const svc of Object.values(load('stack.yml').services)) expect(svc.ports).toBeUndefined();
    expect(Object.keys(load('stack-publish.yml').services)).toEqual(['nginx']);
    const r = spawnSync(
      'docker-compose',
      ['-f', path.join(dir, 'stack.yml'), '-f', path.join(dir, 'stack-publish.yml'), 'config', '-q'],
      { encoding: 'utf8', env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' } },
    );
    expect(r.status).toBe(0);
  });

  // Debian's docker-compose 1.29 validates without an engine; `npm test`'s set-up installs it.
  test.each(ymls)('%s passes docker-compose config, with and without the monitoring profile', (rel) => {
    for (const extra of [[], ['--profile', 'monitoring']]) {
      const r = spawnSync('docker-compose', [...extra, '-f', path.join(dir, rel), 'config', '-q'], {
        encoding: 'utf8',
        env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      });
      expect(r.error).toBeUndefined();
      expect({ rel, code: r.status, err: r.stderr.replace(/.*'configs' key.*\n?/, '') }).toEqual({
        rel,
        code: 0,
        err: '',
      });
    }
  });

  test.each(PRESETS.filter((p) => !p.edges).map((p) => [p.name, p.replicas, p.workers]))(
    '%s: %i replica(s) of %i worker(s), health-gated start, init, nginx on loopback only',
    (name, replicas, workers) => {
      const { services } = load(`${name}.yml`);
      const reps = Object.keys(services).filter((s) => s.startsWith('replica-'));
      expect(reps).toHaveLength(replicas);
      for (const r of reps) {
        expect(services[r].environment.WORKERS).toBe(String(workers));
        expect(services[r].environment.INSTANCE).toBe(r);
        // Signaling rooms span processes through the hub as soon as there is more than one.
        const hub = replicas * workers > 1 ? { hub: { condition: 'service_healthy' } } : {};
        expect(services[r].depends_on).toEqual({ bbox: { condition: 'service_healthy' }, ...hub });
        if (replicas * workers > 1) expect(services[r].environment.SIGNAL_HUB).toBe('hub:7070');
        expect(services[r].build.args.BASE_IMAGE).toBe(`\${LAB_BASE_IMAGE:-node:${pinnedNode()}-bookworm-slim}`);
      }
      expect(Object.keys(services.nginx.depends_on).sort()).toEqual(reps.sort());
      for (const s of ['bbox', ...reps, 'nginx']) expect(services[s].init).toBe(true);
      expect(services.nginx.ports).toEqual(['${LAB_BIND:-127.0.0.1}:${LAB_PORT:-8080}:8080']);
      const conf = fs.readFileSync(path.join(dir, 'nginx', `${name}.conf`), 'utf8');
      expect(conf.match(/server replica-\d+:3000 /g)).toHaveLength(replicas);
      expect(conf).toMatch(/daemon off;/);
      // The monitoring stack only with --profile monitoring.
      for (const m of ['graphite', 'grafana', 'cadvisor']) expect(services[m].profiles).toEqual(['monitoring']);
    },
  );

  test('cdn: nginx over 4 caching edges, each its own config, in front of the 2 backends', () => {
    const { services } = load('cdn.yml');
    const edges = ['edge-1', 'edge-2', 'edge-3', 'edge-4'];
    expect(Object.keys(services.nginx.depends_on)).toEqual(edges);
    for (const e of edges) {
      expect(services[e].volumes).toEqual([`./nginx/cdn-${e}.conf:/etc/nginx/lab.conf:ro`]);
      expect(Object.keys(services[e].depends_on)).toEqual(['replica-1', 'replica-2']);
      const conf = fs.readFileSync(path.join(dir, 'nginx', `cdn-${e}.conf`), 'utf8');
      expect(conf).toMatch(/proxy_cache_path "\/tmp\/cache" /);
      expect(conf).toContain(`add_header X-Edge ${e} always;`);
      expect(conf.match(/server replica-\d+:3000 /g)).toHaveLength(2);
    }
    const entry = fs.readFileSync(path.join(dir, 'nginx', 'cdn.conf'), 'utf8');
    expect(entry).toMatch(/hash \$request_uri consistent;/);
    expect(entry.match(/server edge-\d+:8080 /g)).toHaveLength(4);
  });

  test('caps become cpus and mem_limit in compose, deploy.resources.limits in the stack', () => {
    const { composeProject } = require('../../lab/topology/compose-file');
    const { stackProject } = require('../../lab/topology/stack-file');
    const { resolveDeployment } = require('../../lab/topology/deployments');
    const { parseCap, resolveCaps } = require('../../lab/topology/caps');
    const { buildGraph } = require('../../lab/topology/graph');
    const d = resolveDeployment('cdn');
    const caps = resolveCaps([parseCap('edge=2%,25M'), parseCap('balancer=1%,15M')], buildGraph(d));
    const { services } = composeProject(d, { nginxConfs: { nginx: 'a', 'edge-1': 'b' }, caps });
    expect(services['edge-2']).toMatchObject({ cpus: '0.02', mem_limit: 25 * 2 ** 20, memswap_limit: 25 * 2 ** 20 });
    expect(services.nginx).toMatchObject({ cpus: '0.01', mem_limit: 15 * 2 ** 20 });
    expect(services['replica-1'].cpus).toBeUndefined();
    // docker-compose reads the caps back from the file it validates.
    const tmp = path.join(require('node:os').tmpdir(), `lab-caps-${process.pid}.yml`);
    fs.writeFileSync(
      tmp,
      require('../../lab/topology/compose-write').dump(
        composeProject(d, {
          root: ROOT,
          confs: {
            nginx: '/dev/null',
            'edge-1': '/dev/null',
            'edge-2': '/dev/null',
            'edge-3': '/dev/null',
            'edge-4': '/dev/null',
          },
          caps,
        }),
      ),
    );
    try {
      const r = spawnSync('docker-compose', ['-f', tmp, 'config'], {
        encoding: 'utf8',
        env: { ...process.env, DOCKER_HOST: 'unix:///nonexistent/docker.sock' },
      });
      expect(r.status).toBe(0);
      const read = yaml.load(r.stdout).services['edge-3'];
      expect(read.cpus).toBe(0.02);
      expect(String(read.mem_limit)).toBe(String(25 * 2 ** 20));
    } finally {
      fs.rmSync(tmp, { force: true });
    }
    const stack = stackProject(resolveDeployment('multi-replicated'), {
      confs: { nginx: 'x' },
      caps: { replica: { cpuPct: 50, memoryBytes: 256 * 2 ** 20 }, balancer: { cpuPct: 2, memoryBytes: null } },
    });
    expect(stack.services.service.deploy.resources.limits).toEqual({ cpus: '0.5', memory: '262144K' });
    expect(stack.services.nginx.deploy.resources.limits).toEqual({ cpus: '0.02', memory: '256M' });
  });

  test('every image is pinned to a version', () => {
    const images = ymls.flatMap((rel) => Object.values(load(rel).services).map((s) => s.image)).filter(Boolean);
    for (const image of images) expect(image).toMatch(/:(-)?v?\d+\.\d+(\.\d+)?(-[\w.]+)?\}?$/);
  });

  test('the swarm stack: replicas with resource limits on an overlay network, nginx re-resolving tasks', () => {
    const stack = load('stack.yml');
    expect(stack.networks.lab.driver).toBe('overlay');
    expect(stack.services.service.deploy.replicas).toBe(3);
    expect(stack.services.service.deploy.resources.limits).toEqual({ cpus: '1.0', memory: '512M' });
    for (const s of Object.values(stack.services)) expect(s.networks).toEqual(['lab']);
    const conf = fs.readFileSync(path.join(dir, 'nginx', 'stack.conf'), 'utf8');
    // nginx 1.22 (Debian's) re-resolves a variable in proxy_pass, not an upstream's servers.
    expect(conf).toMatch(/resolver 127\.0\.0\.11 /);
    expect(conf).toMatch(/set \$tasks tasks\.service:3000;\n\s+proxy_pass http:\/\/\$tasks;/);
    expect(conf).not.toMatch(/ resolve;|upstream service/);
    // No virtual IPs: the tasks are found by DNS (and this machine's kernel has no IPVS).
    for (const name of ['service', 'bbox', 'hub']) expect(stack.services[name].deploy.endpoint_mode).toBe('dnsrr');
    expect(stack.services.service.environment.INSTANCE).toBe('replica-{{.Task.Slot}}');
    expect(stack.services.service.environment.SIGNAL_HUB).toBe('hub:7070');
  });

  test("the StatsD config keeps the lab's naming, which the Grafana dashboard expects", () => {
    const text = fs.readFileSync(path.join(dir, 'monitoring', 'statsd', 'udp.js'), 'utf8');
    const config = JSON.parse(text.replace(/^\/\/.*\n/, ''));
    expect(config.graphite).toEqual({ legacyNamespace: false, globalPrefix: '' });
    expect(config.flushInterval).toBe(1000);
  });
});

describe('Dockerfiles', () => {
  test("the images are based on the Node the lock file pins (the lab's own), not an older one", () => {
    expect(IMAGES.nodeBase).toBe(`node:${pinnedNode()}-bookworm-slim`);
    for (const rel of ['compose/stores/postgres/Dockerfile', 'compose/stores/redis/Dockerfile']) {
      const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
      expect(text).toMatch(new RegExp(`^ARG BASE_IMAGE=${IMAGES.nodeBase.replace(/\./g, '\\.')}$`, 'm'));
    }
  });
  test.each(['service/Dockerfile', 'bbox/Dockerfile'])(
    '%s: base image as a build argument, non-root user, health check',
    (rel) => {
      const text = fs.readFileSync(path.join(ROOT, rel), 'utf8');
      const lines = text.split('\n').filter((l) => l && !l.startsWith('#'));
      expect(lines[0]).toBe(`ARG BASE_IMAGE=${IMAGES.nodeBase}`);
      expect(lines[1]).toBe('FROM ${BASE_IMAGE}');
      expect(text).toMatch(/^USER 10001:10001$/m);
      expect(text).toMatch(/^HEALTHCHECK .*\n\s+CMD \["node", "scripts\/healthcheck\.js"/m);
    },
  );
});
