'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { get, lab, freePortBase, tmpStateDir, errorCode, jsonOf } = require('../../helper');
const { isAlive } = require('../../../lab/ownership/procs');
const { tcpFree } = require('../../../lab/topology/ports');
const { PRESETS } = require('../../../lab/topology/deployments');

async function deploy(name, extra = []) {
  const stateDir = tmpStateDir();
  const base = await freePortBase(70); // the caching edges are at base + 50 and after
  const r = await lab(['deploy', name, '--port-base', String(base), '--state-dir', stateDir, '--json', ...extra]);
  if (r.code !== 0) throw new Error(`deploy ${name} failed (${r.code}): ${r.stderr}`);
  const state = jsonOf(r);
  return { stateDir, base, state, url: state.url };
}

// Every pid the deployment owns (pm2 daemon, its apps, their cluster workers, nginx).
function ownedPids(state) {
  const { tree } = require('../../../lab/ownership/procs');
  // pm2's daemon (its apps are its children) and every nginx: the entry, the caching edges.
  const roots = Object.values(state.pids).filter(Boolean);
  return [...new Set(roots.flatMap((p) => tree(p)))];
}

async function downAndCheck({ stateDir, state }) {
  const pids = ownedPids(state);
  expect(pids.length).toBeGreaterThan(3);
  const r = await lab(['down', '--state-dir', stateDir]);
  expect(r.code).toBe(0);
  expect(pids.filter(isAlive)).toEqual([]);
  const ports = [
    state.ports.entry,
    state.ports.bbox1,
    state.ports.bbox2,
    ...state.ports.replicas,
    ...state.ports.edges,
  ];
  for (const port of ports) expect(await tcpFree(port, '127.0.0.1')).toBe(true);
  // Idempotent.
  expect((await lab(['down', '--state-dir', stateDir])).code).toBe(0);
}

// (cdn, with its edges, is test/lab/kinds/edges.e2e.test.js, once per edge kind.)
describe.each(PRESETS.filter((p) => !p.edges).map((p) => [p.name, p.replicas, p.workers, p.edges || 0]))(
  'deployment %s',
  (name, replicas, workers, edges) => {
    let d;
    beforeAll(async () => {
      d = await deploy(name);
    });
    afterAll(async () => {
      if (d) await lab(['down', '--state-dir', d.stateDir]);
    });

    test(`through nginx, exactly ${replicas}x${workers} distinct (instance, worker) pairs answer`, async () => {
      // nginx keeps connections to each replica alive and node:cluster balances connections,
      // so it takes concurrent requests (several upstream connections) to reach every worker.
      const pairs = new Set();
      for (let round = 0; round < 40 && pairs.size < replicas * workers; round++) {
        const batch = await Promise.all(Array.from({ length: 12 }, () => get(`${d.url}/heavy?ms=20`)));
        batch.forEach((r) => pairs.add(`${r.headers['x-instance']}/${r.headers['x-worker']}`));
      }
      expect(pairs.size).toBe(replicas * workers);
    });

    test('each replica gets its share of 300 /pings within ±20%', async () => {
      const counts = {};
      for (let i = 0; i < 300; i++) {
        const r = await get(`${d.url}/ping`);
        expect(r.status).toBe(200);
        counts[r.headers['x-instance']] = (counts[r.headers['x-instance']] || 0) + 1;
      }
      expect(Object.keys(counts)).toHaveLength(replicas);
      const share = 300 / replicas;
      for (const n of Object.values(counts)) {
        expect(n).toBeGreaterThanOrEqual(share * 0.8);
        expect(n).toBeLessThanOrEqual(share * 1.2);
      }
      // (300 requests one after another: over 60 s once, in CI beside five other files.)
    }, 180000);

    test('/bbox1 and /bbox2 answer through nginx', async () => {
      const [b1, b2] = await Promise.all([get(`${d.url}/bbox1`), get(`${d.url}/bbox2`)]);
      expect([b1.status, b1.body]).toEqual([200, 'Hello, world!']);
      expect([b2.status, b2.body]).toEqual([200, 'Hello, world!']);
    });

    test('the rendered nginx config is in the run directory', () => {
      const conf = fs.readFileSync(path.join(d.stateDir, 'nginx', 'nginx.conf'), 'utf8');
      // The entry forwards to the caching edges when there are some, else to the replicas.
      expect(conf.match(/^\s+server 127\.0\.0\.1:\d+ max_fails/gm)).toHaveLength(edges || replicas);
      expect(conf).toMatch(/keepalive 64;/);
    });

    test('down leaves no process and no listening port behind', async () => {
      await downAndCheck(d);
      d = null;
    });
  },
);

describe('balancing methods through nginx', () => {
  test('hash: one URI always reaches the same replica, different URIs spread; down cleans up', async () => {
    const d = await deploy('replicated', ['--method', 'hash']);
    try {
      expect(d.state.deployment.balancer.method).toBe('hash');
      const instanceOf = async (uri) => (await get(`${d.url}${uri}`)).headers['x-instance'];
      const same = new Set();
      for (let i = 0; i < 12; i++) same.add(await instanceOf('/ping?object=7'));
      expect(same.size).toBe(1);
      const spread = new Set();
      for (let i = 0; i < 40; i++) spread.add(await instanceOf(`/ping?object=${i}`));
      expect(spread.size).toBeGreaterThanOrEqual(2);
    } finally {
      await downAndCheck(d);
    }
  });
});

describe('nginx at L4 (the stream module)', () => {
  test('each new connection goes to the next replica; hash on the client address pins one', async () => {
    const rr = await deploy('replicated', ['--balancer', 'nginx-l4']);
    try {
      expect(rr.state.deployment.balancer.kind).toBe('nginx-l4');
      const conf = fs.readFileSync(path.join(rr.stateDir, 'nginx', 'nginx.conf'), 'utf8');
      expect(conf).toMatch(/^stream \{/m);
      expect(conf).not.toMatch(/^http \{/m);
      const seen = new Set();
      for (let i = 0; i < 6; i++) seen.add((await get(`${rr.url}/ping`)).headers['x-instance']);
      expect(seen.size).toBe(3);
    } finally {
      await downAndCheck(rr);
    }
    const pinned = await deploy('replicated', ['--balancer', 'nginx-l4', '--method', 'hash']);
    try {
      const seen = new Set();
      for (let i = 0; i < 6; i++) seen.add((await get(`${pinned.url}/ping?i=${i}`)).headers['x-instance']);
      expect(seen.size).toBe(1);
    } finally {
      await downAndCheck(pinned);
    }
  });

  test('--balancer nginx-l4 with the compose engine is refused before anything starts', async () => {
    const stateDir = tmpStateDir();
    const r = await lab(['deploy', 'single', '--balancer', 'nginx-l4', '--engine', 'compose', '--state-dir', stateDir]);
    expect(r.code).toBe(2);
    expect(errorCode(r.stderr)).toBe('LAB_ERR_NOT_ON_ENGINE');
    expect(fs.readdirSync(stateDir)).toEqual([]);
  });
});

// Each balancer kind's own contract (spread, L7/L4, WebSockets, failover, caps) is
// test/lab/kinds/balancers.e2e.test.js.

describe('no balancer', () => {
  test('--balancer none: only the replicas and the boxes, each replica answering on its own port', async () => {
    const d = await deploy('replicated', ['--balancer', 'none']);
    try {
      expect(d.state.urls).toHaveLength(3);
      expect(d.state.pids.nginx).toBeUndefined();
      // The signaling hub shares rooms across the three replicas.
      expect(d.state.processes.map((p) => p.name).sort()).toEqual([
        'bbox',
        'hub',
        'replica-1',
        'replica-2',
        'replica-3',
      ]);
      const who = await Promise.all(d.state.urls.map(async (u) => (await get(`${u}/ping`)).headers['x-instance']));
      expect(who).toEqual(['replica-1', 'replica-2', 'replica-3']);
    } finally {
      await downAndCheck(d);
    }
  });
});
