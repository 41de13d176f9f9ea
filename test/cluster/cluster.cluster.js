'use strict';

// The cluster test (`npm run test:cluster`, not part of `npm test`): a swarm of two VMs of
// the lab's own (npm run cluster), the routing mesh over tasks on both nodes, a node that
// goes away during a scenario, and everything torn down with the host's network as before.
// Needs root and QEMU (installed by the set-up when root). Times are generous: the nodes are
// emulated (TCG) on a 2-core machine, where a stack takes minutes to start.
const fs = require('node:fs');
const path = require('node:path');
const { lab, get, freePortBase, startProgram, tmpStateDir, ROOT, jsonOf, flagsOf } = require('../helper');
const { run } = require('../../lab/runtime/engine-run');
const { totalArrivals } = require('../../lab/generators/schedule');

function unavailable() {
  if (process.getuid() !== 0) return 'not root (network namespaces, taps)';
  if (!fs.existsSync('/usr/bin/qemu-system-x86_64')) return 'no QEMU (apt-get install qemu-system-x86)';
  return null;
}
const why = unavailable();
if (why) process.stderr.write(`cluster test skipped: ${why}\n`);
const maybe = why ? describe.skip : describe;

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// .ci/run runs the container suite beside this one, nested inside the cluster's life, so that
// each suite's "the host network as before" compares a life the other does not cross: this
// suite says when its cluster is up (the file LAB_CI_CLUSTER_UP names; the container suite
// starts then), and takes it down only once the container suite has ended (the file
// LAB_CI_CLUSTER_DOWN_AFTER names, written by .ci/run; 40 minutes at most). Unset, as when run
// alone, neither happens.
function sayUp() {
  if (process.env.LAB_CI_CLUSTER_UP) fs.writeFileSync(process.env.LAB_CI_CLUSTER_UP, `${process.pid}\n`);
}
async function downWhenAllowed() {
  const gate = process.env.LAB_CI_CLUSTER_DOWN_AFTER;
  if (!gate) return;
  const deadline = Date.now() + 40 * 60000;
  while (!fs.existsSync(gate) && Date.now() < deadline) await sleep(2000);
  if (!fs.existsSync(gate)) process.stderr.write(`cluster test: ${gate} not written in 40 min; going down anyway\n`);
}

maybe('a swarm of two VMs (npm run cluster)', () => {
  const dir = path.join(ROOT, '.lab-engines', `cluster-${process.pid}`);
  // The node image (~1 GiB, 2 min to build) is cached where LAB_CLUSTER_CACHE says (CI keeps
  // one outside the clone), else beside the cluster.
  const cache = process.env.LAB_CLUSTER_CACHE || path.join(ROOT, '.lab-engines', 'cluster-images');
  const where = ['--dir', dir, '--cache', cache];
  let env;
  let up;
  const stateDir = tmpStateDir();
  let url;

  beforeAll(async () => {
    const t0 = Date.now();
    up = await lab(['cluster', 'up', '--nodes', '2', ...where], { timeoutMs: 1500000 });
    up.seconds = (Date.now() - t0) / 1000;
    if (up.code !== 0) throw new Error(`cluster up failed (${up.code}): ${up.stderr}`);
    env = JSON.parse((await lab(['cluster', 'env', '--json', ...where])).stdout);
    sayUp();
  }, 1600000);

  afterAll(async () => {
    await downWhenAllowed();
    if (env) await lab(['down', '--state-dir', stateDir], { env, timeoutMs: 300000 });
    const down = await lab(['cluster', 'down', '--json', ...where], { timeoutMs: 300000 });
    process.stderr.write(`cluster down: ${down.stdout}\n`);
  }, 3000000);

  test('two nodes, both Ready in one swarm; the cluster said how it ran them', async () => {
    expect(up.stderr).toMatch(/starting 2 node\(s\)/);
    expect(up.stderr).toMatch(/\[\d+:\d\d\] the swarm is up: 2 node\(s\)/);
    const s = JSON.parse((await lab(['cluster', 'status', '--json', ...where])).stdout);
    expect(s.nodes.map((n) => [n.name, n.vm])).toEqual([
      ['node1', 'running'],
      ['node2', 'running'],
    ]);
    expect(s.nodes.map((n) => n.swarm)).toEqual(['Ready (manager)', 'Ready']);
    expect(['kvm', 'tcg']).toContain(s.accel);
    expect(env).toMatchObject({ DOCKER_HOST: `tcp://${s.nodes[0].ip}:2375`, LAB_HOST: s.nodes[0].ip });
    process.stderr.write(`cluster up in ${up.seconds} s (${s.accel})\n`);
  });

  test('deploy replicated --engine swarm --balancer mesh --replicas 4: the mesh answers with tasks of both nodes', async () => {
    const r = await lab(
      [
        'deploy',
        'replicated',
        ...flagsOf({
          engine: 'swarm',
          balancer: 'mesh',
          replicas: 4,
          stateDir: stateDir,
          portBase: await freePortBase(),
          json: true,
        }),
      ],
      { env, timeoutMs: 900000 },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    expect(r.code).toBe(0);
    const status = jsonOf(r);
    url = status.url;
    const replicas = status.live.filter((x) => x.name.startsWith('replica-'));
    expect(replicas).toHaveLength(4);
    expect(new Set(replicas.map((x) => x.node))).toEqual(new Set(['node1', 'node2']));
    // Through the mesh of either node: every task answers, those of node 2 too.
    const nodes = JSON.parse((await lab(['cluster', 'status', '--json', ...where])).stdout).nodes;
    for (const ip of nodes.map((n) => n.ip)) {
      const seen = new Set();
      for (let i = 0; i < 16; i++) seen.add((await get(`${url.replace(env.LAB_HOST, ip)}/ping`)).headers['x-instance']);
      expect([...seen].sort()).toEqual(['replica-1', 'replica-2', 'replica-3', 'replica-4']);
    }
  }, 1000000);

  test("two load nodes against the deployment: launched counts add up, the merged p99 lies between the shards', thresholds judged on the whole", async () => {
    const results = tmpStateDir();
    // The load: 24 s up to 10/s, 120 arrivals (60 a node). The run checks the merge and the
    // thresholds, not a rate. Up to 40/s (480), four CI runs of 13 passed the deadline
    // (the plan's 24 s and 30 s of drain) beside the container suite: the emulated nodes
    // carry the replicas as well as the load, node1 launching 5 of its 240 in run O.
    const r = await lab(
      [
        'scenario',
        'ping',
        'load',
        'replicated',
        '--target',
        url,
        '--generator',
        'fast',
        '--load-nodes',
        '2',
        '--scale',
        '0.2',
        '--rate-scale',
        '0.01',
        '--ensure',
        'p99<60000',
        '--ensure',
        'p99<0.01',
        '--results-dir',
        results,
        '--state-dir',
        tmpStateDir(),
        '--no-graphite',
        '--json',
      ],
      { env, timeoutMs: 900000 },
    );
    expect(r.stderr).not.toMatch(/LAB_ERR/);
    const summary = jsonOf(r);
    // (A run stopped at its deadline twice in CI, beside the container suite: with each node's
    // counts and CPU and the run's last lines, so that a failure says which node held it.)
    const seen = (summary.generator?.nodes || []).map((n) => {
      const { node, launched, asked, completed, errors, cpuPctMax, lost, lostAtS, sendLagMs } = n;
      return { node, launched, asked, completed, errors, cpuPctMax, lost, lostAtS, lagP99: sendLagMs?.p99 };
    });
    // (Thrown whole: a deep-equality diff shows only the line that differs.)
    if (summary.status !== 'completed') {
      const last = r.stderr.trim().split('\n').slice(-25).join('\n');
      throw new Error(`status: ${summary.status}\n${JSON.stringify(seen)}\n${last}`);
    }
    // While the load nodes start, the progress says so; the run's clock starts with the load
    // (never "finishing | sent 0"), and the start-up is reported apart (issue 44).
    expect(r.stderr).toMatch(/starting load nodes: \d of 2 ready/);
    expect(r.stderr).not.toMatch(/finishing \| sent 0 /);
    expect(typeof summary.generator.startupS).toBe('number');
    // The run's own StatsD listens on this machine's side of the cluster's network (LAB_HOST
    // is the manager VM's address, where it cannot listen): never "port ... in use".
    expect(summary.monitoring.statsd).toMatchObject({
      ok: true,
      note: expect.stringMatching(/is not this machine's address/),
    });
    const nodes = summary.generator.nodes;
    expect(nodes.map((n) => n.node).sort()).toEqual(['node1', 'node2']);
    // Every arrival the schedule asked was launched by exactly one node.
    const asked = totalArrivals(
      summary.phases.map((ph) => ({
        duration: ph.durationS,
        arrivalRate: ph.targetRate.from,
        rampTo: ph.targetRate.to,
      })),
    );
    expect(nodes.reduce((a, n) => a + n.launched, 0)).toBe(summary.requestsSent);
    expect(summary.requestsSent).toBe(asked);
    const p99s = nodes.map((n) => n.latencyMs.p99);
    expect(summary.responseTimeMs.p99).toBeGreaterThanOrEqual(Math.min(...p99s));
    expect(summary.responseTimeMs.p99).toBeLessThanOrEqual(Math.max(...p99s));
    for (const n of nodes) expect(typeof n.clockOffsetMs).toBe('number');
    // Thresholds on the merged result: one holds, one fails, and the run exits 99 (a crossed
    // threshold, as a pipeline reads it; 1 is kept for the lab's own errors).
    expect(summary.thresholds.map((t) => t.ok)).toEqual([true, false]);
    expect(r.code).toBe(99);
    expect(
      summary.nodes.rows
        .filter((x) => x.node.startsWith('generator@'))
        .map((x) => x.node)
        .sort(),
    ).toEqual(['generator@node1', 'generator@node2']);
    // The load tasks are gone.
    const ls = await run('docker', ['service', 'ls', '--format', '{{.Name}}'], { env });
    expect(ls.out).not.toMatch(/lab-load-/);
    process.stderr.write(
      `load nodes: ${JSON.stringify(nodes.map((n) => [n.node, n.clockOffsetMs, n.rttMs, n.launched, n.latencyMs.p99]))}, merged p99 ${summary.responseTimeMs.p99}\n`,
    );
  }, 1000000);

  test('node 2 goes away during a scenario: the summary shows the failing window, the tasks move and all answer again', async () => {
    const results = tmpStateDir();
    // 10 new connections a second through the mesh for 5 minutes (the lab's open loop): node 2
    // stops 20 s in, and in four CI runs the failing window had ended by 118 s into the run; but
    // on 2026-12-01, with this machine twice as slow all morning, it had not by 180 s, twice.
    const run = await startProgram(
      'lab/cli',
      [
        'scenario',
        'ping',
        'endurance',
        'replicated',
        ...flagsOf({
          target: url,
          generator: 'fast',
          rateScale: 0.05,
          duration: '300s',
          resultsDir: results,
          stateDir: tmpStateDir(),
          graphite: false,
          json: true,
        }),
      ],
      { env, ready: (err) => /running ping endurance/.test(err), timeoutMs: 120000 },
    );
    await sleep(20000);
    const stop = await lab(['cluster', 'stop-node', '2', ...where]);
    expect(stop.code).toBe(0);
    const { code } = await run.exited;
    const summary = JSON.parse(run.output().stdout);
    expect([code, summary.status]).toEqual([expect.any(Number), 'completed']);
    expect(summary.outages.length).toBeGreaterThanOrEqual(1);
    const last = summary.outages[summary.outages.length - 1];
    expect(last.toS).toBeLessThan(summary.durationS);
    if (env.LAB_EMULATED) expect(summary.environment.emulated).toMatch(/emulated/);
    process.stderr.write(`outages after node 2 stopped (20 s into the run): ${JSON.stringify(summary.outages)}\n`);
    // The tasks of node 2 were started again on node 1, and all four answer.
    const deadline = Date.now() + 600000;
    let live;
    for (;;) {
      const st = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir], { env })).stdout);
      live = st.live.filter((x) => x.name.startsWith('replica-'));
      if (live.length === 4 && live.every((x) => x.node === 'node1' && x.status === 'up')) break;
      if (Date.now() > deadline) throw new Error(`tasks not moved: ${JSON.stringify(live)}`);
      await sleep(5000);
    }
    const seen = new Set();
    for (let i = 0; i < 16; i++) seen.add((await get(`${url}/ping`)).headers['x-instance']);
    expect(seen.size).toBe(4);
    const report = fs.readFileSync(path.join(summary.resultsDir, 'report.html'), 'utf8');
    expect(report).toMatch(/Failing from [\d.]+ s to [\d.]+ s into the run/);
  }, 1200000);

  test('down removes the stack; the cluster goes down with the host network as before', async () => {
    await downWhenAllowed();
    const d = await lab(['down', '--state-dir', stateDir], { env, timeoutMs: 300000 });
    expect(d.code).toBe(0);
    const c = JSON.parse((await lab(['cluster', 'down', '--json', ...where], { timeoutMs: 300000 })).stdout);
    expect(c.stopped.sort()).toEqual(['node1']);
    // The differences themselves, so a failure says which device, address or rule stayed.
    expect({ asBefore: c.hostAsBefore, differs: c.differs }).toEqual({ asBefore: true, differs: [] });
    // The folder the lab made for the cluster is gone too (the image cache is elsewhere).
    expect(fs.existsSync(dir)).toBe(false);
  }, 3000000);
});
