'use strict';

const fs = require('node:fs');
const { get, lab, freePortBase, tmpStateDir, jsonOf } = require('../../helper');
const { isAlive, tree } = require('../../../lab/ownership/procs');
const { detect, readGroup, existingGroups } = require('../../../lab/runtime/cgroups');
const { onlyWith, has } = require('../../requires');
const { EDGES } = require('../../../lab/kinds');
const { withRatio } = require('../../../lab/monitoring/node-readings');

const M = 2 ** 20;
const canCap = has('cgroups');
const pidOf = (state, name) => state.pids?.[name] ?? state.processes.find((p) => p.name === name)?.pid;

// The same contract for every kind of caching edge (lab/kinds/, role "edge"), so a new kind
// is tested by adding its file: the cdn row (seed 000), the balancer hashing URIs over 4
// edges of the kind in front of 2 backends, with caps on the edges and one backend
// (generous ones: this checks that caps are set and hold processes, not what they do to
// throughput; bench/caps.js measures that).
describe.each(EDGES.map((k) => [k.flag || k.name, k]))('caching edges of %s', (flagName, kind) => {
  let d;
  // A cache's counts settle after the answer (nginx logs its line after the client has it):
  // marks are taken once they have not moved for 300 ms (polled every 100 ms, up to 5 s:
  // generous for a busy 2-core machine).
  async function settledMarks(edges) {
    const read = () => JSON.stringify(edges.map((e) => kind.cache.mark(d.state.paths[e])));
    let last = read();
    for (let i = 0, quiet = 0; i < 50 && quiet < 3; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const now = read();
      quiet = now === last ? quiet + 1 : 0;
      last = now;
    }
    return JSON.parse(last);
  }

  beforeAll(async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase(70);
    const caps = canCap ? ['--cap', 'edge=50%,64M', '--cap', 'replica-1=100%,256M'] : [];
    const args = ['deploy', 'cdn', '--edge-kind', flagName, '--port-base', String(base), '--state-dir', stateDir];
    const r = await lab([...args, '--json', ...caps], { timeoutMs: 180000 });
    if (r.code !== 0) throw new Error(`deploy cdn --edge-kind ${flagName} failed (${r.code}): ${r.stderr}`);
    d = { stateDir, state: jsonOf(r) };
    d.url = d.state.url;
  }, 200000);
  afterAll(async () => {
    if (d) await lab(['down', '--state-dir', d.stateDir]);
  });

  test('one URI always reaches the same edge, and its second request is a HIT naming its backend', async () => {
    expect(d.state.graph.nodes.filter((n) => n.roles.includes('edge')).map((n) => n.kind)).toEqual(
      Array(4).fill(kind.name),
    );
    const first = await get(`${d.url}/asset/obj-42?bytes=2000`);
    expect(first.status).toBe(200);
    expect(first.headers['x-cache-status']).toBe('MISS');
    expect(first.headers['x-instance']).toMatch(/^replica-[12]$/);
    const again = await get(`${d.url}/asset/obj-42?bytes=2000`);
    expect(again.headers['x-edge']).toBe(first.headers['x-edge']);
    expect(again.headers['x-cache-status']).toBe('HIT');
    expect(again.headers['x-instance']).toBe(first.headers['x-instance']);
    expect(again.body).toBe(first.body);
    // Many objects spread over the edges (consistent hashing on the URI).
    const edges = new Set();
    for (let i = 0; i < 40; i++) edges.add((await get(`${d.url}/asset/obj-${i}`)).headers['x-edge']);
    expect(edges.size).toBeGreaterThanOrEqual(3);
  });

  test('every path answers through the edges, never from the cache; the uncacheable ones reach both backends', async () => {
    const seen = new Set();
    for (let i = 0; i < 10; i++) {
      const r = await get(`${d.url}/ping`);
      expect([r.status, r.body]).toEqual([200, 'pong']);
      expect(r.headers['x-cache-status']).toBe('MISS');
      seen.add(r.headers['x-instance']);
    }
    expect(seen.size).toBe(2);
    for (const p of ['/bbox1', '/bbox2']) expect((await get(`${d.url}${p}`)).body).toBe('Hello, world!');
    expect((await get(`${d.url}/heavy?ms=5`)).status).toBe(200);
  });

  test('each edge counts its requests and hits, as the node table shows them', async () => {
    const edges = ['edge-1', 'edge-2', 'edge-3', 'edge-4'];
    const marks = await settledMarks(edges);
    const a = await get(`${d.url}/asset/counted`);
    await get(`${d.url}/asset/counted`);
    await settledMarks(edges);
    const counts = Object.fromEntries(
      edges.map((e, i) => [e, withRatio(kind.cache.since(d.state.paths[e], marks[i]))]),
    );
    expect(counts[a.headers['x-edge']]).toMatchObject({ requests: 2, verdicts: { MISS: 1, HIT: 1 }, hitRatio: 0.5 });
    expect(Object.values(counts).reduce((s, c) => s + c.requests, 0)).toBe(2);
  });

  onlyWith('cgroups')('the caps are read back from the kernel, with the nodes inside them', () => {
    const sys = detect();
    const token = d.state.cgroups.token;
    expect(readGroup(sys, token, 'edge-3')).toMatchObject({ cpuPct: 50, memoryLimitBytes: 64 * M });
    expect(readGroup(sys, token, 'replica-1')).toMatchObject({ cpuPct: 100, memoryLimitBytes: 256 * M });
    // The edge's processes (nginx's master and workers, varnishd and its child) and the
    // replica's: members of their groups.
    for (const node of ['edge-3', 'replica-1']) {
      const pids = tree(pidOf(d.state, node));
      expect(pids.length).toBeGreaterThanOrEqual(1);
      for (const p of pids) expect(fs.readFileSync(`/proc/${p}/cgroup`, 'utf8')).toContain(`/${node}\n`);
    }
    expect(d.state.caps['replica-2']).toBeUndefined();
  });

  test('down stops every node and removes the control groups', async () => {
    const pids = [...Object.values(d.state.pids), ...d.state.processes.map((p) => p.pid)].flatMap((p) => tree(p));
    const r = await lab(['down', '--state-dir', d.stateDir]);
    expect(r.code).toBe(0);
    expect(pids.filter(isAlive)).toEqual([]);
    if (canCap) {
      expect(r.stdout).toMatch(/removed \d+ control group/);
      expect(existingGroups(detect(), d.state.cgroups.token)).toEqual([]);
    }
    d = null;
  });
});
