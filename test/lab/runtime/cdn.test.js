'use strict';

const fs = require('node:fs');
const { get, lab, freePortBase, tmpStateDir } = require('../../helper');
const { isAlive, tree } = require('../../../lab/ownership/procs');
const { detect, readGroup, existingGroups } = require('../../../lab/monitoring/cgroups');
const { cacheCounts, cacheOffsets } = require('../../../lab/monitoring/edge-cache');

const M = 2 ** 20;

// nginx writes a request's access-log line after the client has its answer, so a line of the
// previous test's last request can land after offsets are taken. Wait until the logs have been
// quiet for 300 ms (polled every 100 ms, up to 5 s: generous for a busy 2-core machine).
async function settledOffsets(stateDir, edges) {
  let last = JSON.stringify(cacheOffsets(stateDir, edges));
  let quiet = 0;
  for (let i = 0; i < 50 && quiet < 3; i++) {
    await new Promise((r) => setTimeout(r, 100));
    const now = JSON.stringify(cacheOffsets(stateDir, edges));
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
  return JSON.parse(last);
}
const canCap = detect() && process.getuid() === 0;

// The cdn row (seed 000): nginx hashing URIs over 4 caching edges in front of 2 backends,
// here with caps on the edges and one backend (generous ones: this checks that caps are set
// and hold processes, not what they do to throughput; bench/caps.js measures that).
describe('the cdn deployment', () => {
  let d;
  beforeAll(async () => {
    const stateDir = tmpStateDir();
    const base = await freePortBase(70);
    const caps = canCap ? ['--cap', 'edge=50%,64M', '--cap', 'replica-1=100%,256M'] : [];
    const r = await lab(['deploy', 'cdn', '--port-base', String(base), '--state-dir', stateDir, '--json', ...caps]);
    if (r.code !== 0) throw new Error(`deploy cdn failed (${r.code}): ${r.stderr}`);
    d = { stateDir, state: JSON.parse(r.stdout) };
    d.url = d.state.url;
  });
  afterAll(async () => {
    if (d) await lab(['down', '--state-dir', d.stateDir]);
  });

  test('one URI always reaches the same edge, and its second request is a HIT naming its backend', async () => {
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

  test('every path answers through the edges; the uncacheable ones reach both backends', async () => {
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

  test("each edge's access log counts its requests and hits", async () => {
    const edges = ['edge-1', 'edge-2', 'edge-3', 'edge-4'];
    const offsets = await settledOffsets(d.stateDir, edges);
    const a = await get(`${d.url}/asset/counted`);
    await get(`${d.url}/asset/counted`);
    await settledOffsets(d.stateDir, edges);
    const counts = cacheCounts(d.stateDir, edges, offsets);
    expect(counts[a.headers['x-edge']]).toMatchObject({ requests: 2, verdicts: { MISS: 1, HIT: 1 }, hitRatio: 0.5 });
    expect(Object.values(counts).reduce((s, c) => s + c.requests, 0)).toBe(2);
  });

  (canCap ? test : test.skip)('the caps are read back from the kernel, with the nodes inside them', () => {
    const sys = detect();
    const token = d.state.cgroups.token;
    expect(readGroup(sys, token, 'edge-3')).toMatchObject({ cpuPct: 50, memoryLimitBytes: 64 * M });
    expect(readGroup(sys, token, 'replica-1')).toMatchObject({ cpuPct: 100, memoryLimitBytes: 256 * M });
    // The edge's master and its workers, the replica's process: members of their groups.
    for (const [node, pid] of [
      ['edge-3', d.state.pids['edge-3']],
      ['replica-1', d.state.processes.find((p) => p.name === 'replica-1').pid],
    ]) {
      for (const p of tree(pid)) expect(fs.readFileSync(`/proc/${p}/cgroup`, 'utf8')).toContain(`/${node}\n`);
    }
    expect(d.state.caps['replica-2']).toBeUndefined();
  });

  test('down stops every node and removes the control groups', async () => {
    const pids = Object.values(d.state.pids).flatMap((p) => tree(p));
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
