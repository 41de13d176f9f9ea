'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { lab, ownPlace, tmpStateDir, errorCode, get, ROOT, forDeploy, jsonOf, flagsOf } = require('../../helper');

// Your own service (--app) as a new user brings it: test/fixtures/apps/shop, plain node:http,
// PORT from its environment, nothing of the lab's. Its answers say which process served
// them (X-Pid), which only this test reads: the lab knows nothing of it.
const SHOP = path.join(ROOT, 'test', 'fixtures', 'apps', 'shop');
const dirOf = (place, flag) => place[place.indexOf(flag) + 1];
// deploy takes no --results-dir.

// 60 GETs of /api/items, in concurrent batches (node:cluster balances connections, and an
// L7 entry reuses its keep-alive ones): the processes that served them.
async function servedBy(urls) {
  const pids = new Set();
  for (let round = 0; round < 5; round++) {
    const batch = await Promise.all(
      Array.from({ length: 12 }, (_, i) => get(`${urls[i % urls.length]}/api/items`, { timeoutMs: 10000 })),
    );
    for (const r of batch) {
      expect(r.status).toBe(200);
      pids.add(r.headers['x-pid']);
    }
  }
  return pids;
}

describe('your service deploys in every deployment, behind every balancer and edge kind', () => {
  test.each([
    ['single', []],
    ['replicated', []],
    ['multi', []],
    ['multi-replicated', []],
    ['cdn', []],
    ['cdn', ['--edge-kind', 'varnish']],
    ['replicated', ['--balancer', 'nginx-l4']],
    ['replicated', ['--balancer', 'haproxy']],
    ['replicated', ['--balancer', 'haproxy-l4']],
    ['replicated', ['--balancer', 'caddy']],
    ['replicated', ['--balancer', 'node']],
    ['replicated', ['--balancer', 'none']],
  ])(
    '%s %j: 60 GETs reach every replica (and several workers)',
    async (name, extra) => {
      const place = await ownPlace({ ports: 70 });
      const up = await lab(['deploy', name, '--app', SHOP, ...extra, '--json', ...forDeploy(place)]);
      try {
        expect(up.stderr).not.toMatch(/LAB_ERR/);
        // (With its last words: a failed deploy is otherwise only "expected 0, received 1".)
        expect({ code: up.code, stderr: up.stderr.slice(-1500) }).toMatchObject({ code: 0 });
        const state = jsonOf(up);
        expect(state.graph.nodes.map((n) => n.kind)).not.toContain('bbox');
        const replicas = state.deployment.replicas;
        const workers = state.deployment.workers;
        const pids = await servedBy(state.urls);
        // Every replica is a process of its own (or a primary with its workers).
        expect(pids.size).toBeGreaterThanOrEqual(workers > 1 ? replicas * 2 : replicas);
      } finally {
        expect((await lab(['down', '--state-dir', dirOf(place, '--state-dir')])).code).toBe(0);
      }
    },
    120000,
  );
});

describe('a scenario on a path of your service', () => {
  test.each([['fast'], ['closed'], ['artillery']])(
    'with %s: answers counted by code, the replicas that answered named',
    async (generator) => {
      const place = await ownPlace({ ports: 70 });
      const closed = generator === 'closed';
      const r = await lab(
        [
          'scenario',
          '/api/cart',
          'endurance',
          'replicated',
          ...flagsOf({ app: SHOP, generator: generator, body: '{"item":"tea"}' }),
          ...(closed ? ['--requests', '90', '--connections', '3'] : ['--duration', '3s', '--rate-scale', '1.5']),
          '--no-graphite',
          '--json',
          ...place,
        ],
        { timeoutMs: 120000 },
      );
      expect(r.stderr).not.toMatch(/LAB_ERR/);
      const s = jsonOf(r);
      expect(s.status).toBe('completed');
      // 30/s for 3 s, or the closed loop's budget: every answer a 201.
      expect(s.codes).toEqual({ 201: 90 });
      expect(s.answersFailed.count).toBe(0);
      expect(Object.keys(s.answeredBy).sort()).toEqual(['replica-1', 'replica-2', 'replica-3']);
      expect(r.code).toBe(0);
    },
    150000,
  );

  test('a path it does not have: every answer failed, said first, and errors<1% fails the run (exit 1)', async () => {
    const place = await ownPlace({ ports: 70 });
    const r = await lab(
      [
        'scenario',
        '/no/such',
        'endurance',
        'single',
        ...flagsOf({ app: SHOP, generator: 'fast', duration: '2s', ensure: 'errors<1%', graphite: false }),
        ...place,
      ],
      { timeoutMs: 120000 },
    );
    expect(r.code).toBe(99);
    expect(r.stdout.split('\n')[0]).toMatch(
      /^\/no\/such endurance on single \(app shop\): completed after .*; most answers failed: 100% \(404: 40\)$/,
    );
    expect(r.stdout).toMatch(/FAIL {2}errors<1% {2}\(measured 100%\)/);
    // --expect-status says a 404 is what it wants.
    const ok = await lab(
      [
        'scenario',
        '/no/such',
        'endurance',
        'single',
        ...flagsOf({
          app: SHOP,
          generator: 'fast',
          duration: '2s',
          ensure: 'errors<1%',
          expectStatus: '2xx,404',
          graphite: false,
        }),
        ...place,
      ],
      { timeoutMs: 120000 },
    );
    expect(ok.code).toBe(0);
  }, 200000);

  test('--target keeps its path: the endpoint is the path, and a disagreeing one is refused', async () => {
    const place = await ownPlace({ ports: 70 });
    const stateDir = dirOf(place, '--state-dir');
    const up = await lab(['deploy', 'single', '--app', SHOP, '--json', ...forDeploy(place)]);
    try {
      const { url } = jsonOf(up);
      const r = await lab(
        [
          'scenario',
          'endurance',
          ...flagsOf({
            target: `${url}/api/items`,
            generator: 'fast',
            duration: '2s',
            graphite: false,
            json: true,
            resultsDir: tmpStateDir(),
            stateDir: tmpStateDir(),
          }),
        ],
        { timeoutMs: 120000 },
      );
      expect(r.stderr).not.toMatch(/LAB_ERR/);
      const s = jsonOf(r);
      expect([s.endpoint, s.codes]).toEqual(['/api/items', { 200: 40 }]);
      const clash = await lab([
        'scenario',
        'ping',
        'load',
        '--target',
        `${url}/api/items`,
        '--state-dir',
        tmpStateDir(),
      ]);
      expect({ exit: clash.code, code: errorCode(clash.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_FLAG_VALUE' });
      expect(clash.stderr).toMatch(/names the path \/api\/items, and the endpoint ping asks \/ping/);
    } finally {
      await lab(['down', '--state-dir', stateDir]);
    }
  }, 200000);
});

describe('bad input: one clear message, exit 2 (1 for a service that did not come up), nothing left running', () => {
  const app = (files) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'yours-'));
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
    return dir;
  };
  test.each([
    ['no such folder', () => ['--app', '/no/such/folder'], /--app \/no\/such\/folder: no such folder/],
    ['no package.json and no --app-cmd', () => ['--app', app({ 'server.js': '' })], /no package\.json.*--app-cmd/],
    [
      'an app that exits at start',
      () => [
        '--app',
        app({ 'package.json': '{"main":"s.js"}', 's.js': "console.error('boom: no DATABASE_URL'); process.exit(3)" }),
      ],
      /your service .* did not start: it exited at start \(exit code 3\); its last lines: \[LAB_ERR_APP\]\n {2}boom: no DATABASE_URL/,
    ],
    [
      'an app that never listens',
      () => ['--app', app({ 'package.json': '{"main":"s.js"}', 's.js': 'setInterval(() => {}, 1000)' })],
      /did not answer HTTP within 3s \(ECONNREFUSED\), the limit of LAB_APP_START_MS\. If it is still starting, give it longer \(--app-start-timeout 2m\); if not, does it listen on process\.env\.PORT \(\d+ here\)\?/,
    ],
    [
      'a shell start line with several workers',
      () => ['--app', app({ 'package.json': '{"scripts":{"start":"node s.js > log"}}' }), '--workers', '2'],
      /needs a plain `node file\.js` start/,
    ],
  ])(
    '%s',
    async (what, args, message) => {
      const place = await ownPlace();
      const stateDir = dirOf(place, '--state-dir');
      const r = await lab(['deploy', 'single', ...args(), ...forDeploy(place)], { env: { LAB_APP_START_MS: '3000' } });
      // (A service that did not come up is a deployment that failed, exit 1; what is refused
      // before anything starts, 2.)
      expect(r.code).toBe(/^an app that/.test(what) ? 1 : 2);
      expect(r.stderr).toMatch(message);
      expect(fs.existsSync(path.join(stateDir, 'state.json'))).toBe(false);
    },
    60000,
  );

  test('--app where its image cannot be made (a swarm whose images are preloaded)', async () => {
    const r = await lab(['deploy', 'replicated', '--app', SHOP, '--engine', 'swarm', '--state-dir', tmpStateDir()], {
      env: { LAB_IMAGES: 'preloaded', LAB_CLUSTER_DIR: '' },
    });
    expect({ exit: r.code, code: errorCode(r.stderr) }).toEqual({ exit: 2, code: 'LAB_ERR_NOT_ON_ENGINE' });
    expect(r.stderr).toMatch(/your service's image cannot be made/);
  });

  test('--app-cmd or --health without --app; --heavy-ms with --app', async () => {
    const a = await lab(['deploy', 'single', '--health', '/health', '--state-dir', tmpStateDir()]);
    expect([a.code, errorCode(a.stderr)]).toEqual([2, 'LAB_ERR_FLAG_NEEDS']);
    const b = await lab([
      'scenario',
      '/x',
      'load',
      'single',
      ...flagsOf({ app: SHOP, heavyMs: 5, stateDir: tmpStateDir() }),
    ]);
    expect(b.stderr).toMatch(
      /--heavy-ms and --app exclude each other: --heavy-ms is for the lab's own service, not --app/,
    );
  });
});
