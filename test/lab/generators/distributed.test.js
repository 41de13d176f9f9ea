'use strict';

const http = require('node:http');
const net = require('node:net');
const { startDistributed, clockOffset, nodeThreads } = require('../../../lab/generators/distributed');
const { localLauncher } = require('../../../lab/generators/local-launcher');
const { totalArrivals } = require('../../../lab/generators/schedule');

// The coordinator with load nodes as processes of this machine (the swarm launcher's
// stand-in): clocks measured, shards handed out, seconds merged, rows per node.

test('the clock offset comes from the ping with the shortest round trip', () => {
  const samples = [
    { sent: 0, received: 40, at: 5030 }, // slow trip: midpoint uncertain by 20 ms
    { sent: 100, received: 102, at: 5101 }, // the best: offset 5000 +- 1
    { sent: 200, received: 210, at: 5208 },
  ];
  expect(clockOffset(samples)).toEqual({ rttMs: 2, offsetMs: 5000 });
});

test("each node's threads: from its share of the peak rate or connections, at most its cores", () => {
  const open = { mode: 'open', phases: [{ duration: 10, arrivalRate: 6000 }] };
  expect(nodeThreads(open, 2, 2)).toBe(2); // 3,000/s each: two threads of 1,500
  expect(nodeThreads(open, 4, 8)).toBe(1);
  expect(nodeThreads({ ...open, workers: 3 }, 2, 2)).toBe(3);
  expect(nodeThreads({ mode: 'closed', connections: 4000, phases: [] }, 2, 16)).toBe(4);
});

let server;
let target;
beforeAll(async () => {
  server = http.createServer((req, res) => res.end('pong'));
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${server.address().port}`;
});
afterAll(() => new Promise((r) => server.close(r)));

const run = (plan, o) => {
  const logs = [];
  const launched = [];
  const launcher = localLauncher(o.launcher || {});
  const g = startDistributed(plan, {
    nodes: o.nodes,
    listenHost: '127.0.0.1',
    log: (l) => logs.push(l),
    launcher: {
      launch: async (a) => {
        const l = await launcher.launch(a);
        launched.push(l);
        return l;
      },
    },
    startAheadMs: 1500,
    ...o.extra,
  });
  return { g, logs, launched };
};
const alive = (pid) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

// Busy 2-core machine: the nodes are separate Node processes; the tolerances below are for
// the clock (tens of ms against a 3 s skew) and none is on latency.
test('open loop on two nodes, one with its clock 3 s ahead: every arrival launched once, seconds aligned, offsets measured', async () => {
  const phases = [
    { name: 'steady', duration: 3, arrivalRate: 80 },
    { name: 'ramp', duration: 2, arrivalRate: 40, rampTo: 120 },
  ];
  const { g, logs, launched } = run(
    { mode: 'open', target, path: '/', method: 'GET', phases, timeoutMs: 5000, keepalive: true },
    { nodes: 2, launcher: { skewsMs: [0, 3000] } },
  );
  const res = await g.done;
  expect(res.status).toBe('completed');
  const secs = res.records.filter((r) => r.type === 'second');
  const asked = totalArrivals(phases);
  expect(secs.reduce((a, s) => a + s.launched, 0)).toBe(asked);
  expect(res.loadNodes.reduce((a, n) => a + n.launched, 0)).toBe(asked);
  // A 5 s run: with the skew not taken out, the nodes' seconds would sit 3 apart (8 or more).
  expect(secs.length).toBeLessThanOrEqual(7);
  const [a, b] = res.loadNodes;
  expect([a.node, b.node]).toEqual(['local-1', 'local-2']);
  expect(Math.abs(a.clockOffsetMs)).toBeLessThan(50);
  expect(Math.abs(b.clockOffsetMs - 3000)).toBeLessThan(50);
  // Shards in the order the nodes connected: one thread each, 0 and 1 of 2.
  expect([a.shards, b.shards].sort()).toEqual([
    [0, 0],
    [1, 1],
  ]);
  // Each record's time is on the coordinator's clock: the start record's t0, then one a second.
  const start = res.records.find((r) => r.type === 'start');
  expect(secs[0].at).toBe(start.at);
  expect(start.loadNodes).toHaveLength(2);
  expect(res.records.filter((r) => r.type === 'phase').map((r) => r.name)).toEqual(['steady', 'ramp']);
  const done = res.records.find((r) => r.type === 'done');
  expect(done.loadNodes).toEqual(res.loadNodes);
  expect(logs.join('\n')).toMatch(/clocks: local-1 .* local-2 \+\d+/);
  // The launcher's processes are gone.
  for (const pid of launched[0].pids) expect(alive(pid)).toBe(false);
}, 60000);

test('closed loop with a request budget: the budget is shared exactly', async () => {
  const { g } = run(
    {
      mode: 'closed',
      target,
      path: '/',
      method: 'GET',
      connections: 5,
      requests: 301,
      phases: [{ name: 'closed', duration: 30 }],
      timeoutMs: 5000,
      keepalive: true,
    },
    { nodes: 2 },
  );
  const res = await g.done;
  expect(res.status).toBe('completed');
  expect(res.loadNodes.map((n) => n.completed).reduce((x, y) => x + y, 0)).toBe(301);
}, 60000);

test('stop mid-run: interrupted, what was measured kept, the nodes stopped', async () => {
  const { g, launched } = run(
    {
      mode: 'open',
      target,
      path: '/',
      method: 'GET',
      phases: [{ name: 'long', duration: 60, arrivalRate: 50 }],
      timeoutMs: 5000,
    },
    { nodes: 2 },
  );
  // Once the run has started and sent a few seconds.
  const deadline = Date.now() + 20000;
  while (!launched.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  await new Promise((r) => setTimeout(r, 4000));
  const t = Date.now();
  const res = await g.stop();
  expect(Date.now() - t).toBeLessThan(12000);
  expect(res.status).toBe('interrupted');
  const launchedCount = res.records.filter((r) => r.type === 'second').reduce((a, s) => a + s.launched, 0);
  expect(launchedCount).toBeGreaterThan(0);
  expect(launchedCount).toBeLessThan(60 * 50);
  expect(res.records.find((r) => r.type === 'done').interrupted).toBe(true);
  for (const pid of launched[0].pids) expect(alive(pid)).toBe(false);
}, 60000);

test("a connection without the run's token is closed, and nodes that never come fail the run with a reason", async () => {
  let address;
  const { g } = run(
    { mode: 'open', target, path: '/', method: 'GET', phases: [{ name: 'x', duration: 1, arrivalRate: 1 }] },
    {
      nodes: 1,
      extra: {
        connectTimeoutMs: 1500,
        launcher: {
          // A launcher that starts nothing: only the stranger below connects.
          launch: async ({ env }) => {
            address = env.LAB_COORDINATOR;
            return { stop: async () => {}, why: async () => 'no task was scheduled' };
          },
        },
      },
    },
  );
  await new Promise((r) => setTimeout(r, 200));
  const [host, port] = address.split(':');
  const stranger = net.connect({ host, port: Number(port) });
  stranger.write(`${JSON.stringify({ op: 'hello', token: 'wrong', node: 'intruder' })}\n`);
  const closed = await new Promise((r) => stranger.on('close', () => r(true)));
  expect(closed).toBe(true);
  const res = await g.done;
  expect(res.status).toMatch(/^failed \(0 of 1 load node\(s\) connected in 2 s: no task was scheduled\)$/);
  expect(res.loadNodes).toEqual([]);
}, 30000);
