#!/usr/bin/env node
'use strict';

// The generator from one load node and from two (--load-nodes, issue 24): the same open-loop
// schedule at rising rates against one deployment, each run's merged figures, each node's
// send lag and CPU, and the coordinator's own CPU per merged second. A rate "holds" when
// every asked arrival was launched and the merged p99 send lag is at most 5 ms.
//   node bench/load-nodes.js [--cluster] [--rates 25,50,100,200] [--nodes 1,2] [--seconds 10]
// --cluster brings the lab's VM cluster up for the bench (and down after it); without it the
// swarm is DOCKER_HOST's (e.g. after eval "$(npm run -s cluster -- env)"), or, with
// LAB_LOAD_NODES=local, processes of this machine. Writes bench/results/load-nodes.json.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const lab = require('./lab');
const { bench, flag, common } = require('./kit');
const { startOnLoadNodes } = require('../lab/generators/load-nodes');
const { totalArrivals } = require('../lab/generators/schedule');
const { merge, figures } = require('../lab/measure/histogram');

const log = (m) => process.stderr.write(`${m}\n`);
const ROOT = path.join(__dirname, '..');
const r1 = (v) => (v === null || v === undefined ? null : Math.round(v * 10) / 10);

async function one(target, nodes, rate, env, S) {
  const phases = [{ name: `${rate}/s`, duration: S, arrivalRate: rate }];
  const records = [];
  let cpuAtStart = null;
  let cpuS = null;
  const gen = startOnLoadNodes(
    { mode: 'open', target, path: '/ping', method: 'GET', phases, timeoutMs: 10000 },
    {
      nodes,
      env,
      log,
      onRecord: (r) => {
        records.push(r);
        // The coordinator's CPU from the common start to the merged end: merging, clocks, I/O.
        if (r.type === 'start') cpuAtStart = process.cpuUsage();
        if (r.type === 'done' && cpuAtStart) {
          const d = process.cpuUsage(cpuAtStart);
          cpuS = (d.user + d.system) / 1e6;
        }
      },
    },
  );
  const res = await gen.done;
  const secs = records.filter((r) => r.type === 'second');
  const latency = figures(merge(secs.map((s) => s.hist?.latency)));
  const lag = figures(merge(secs.map((s) => s.hist?.lag)));
  const asked = totalArrivals(phases);
  const launched = secs.reduce((a, s) => a + s.launched, 0);
  const row = {
    loadNodes: nodes,
    rate,
    status: res.status,
    asked,
    launched,
    errors: secs.reduce((a, s) => a + Object.values(s.errors || {}).reduce((x, y) => x + y, 0), 0),
    p50Ms: latency?.p50 ?? null,
    p99Ms: latency?.p99 ?? null,
    sendLagP99Ms: lag?.p99 ?? null,
    holds: launched >= asked && (lag?.p99 ?? Infinity) <= 5,
    coordinatorCpuMsPerMergedSecond: cpuS !== null && secs.length ? r1((cpuS * 1000) / secs.length) : null,
    nodes: (res.loadNodes || []).map((n) => ({
      node: n.node,
      clockOffsetMs: n.clockOffsetMs,
      rttMs: n.rttMs,
      launched: n.launched,
      sendLagP99Ms: n.sendLagMs?.p99 ?? null,
      cpuPctMean: n.cpuPctMean,
    })),
  };
  log(
    `  ${nodes} node(s) at ${rate}/s: launched ${launched}/${asked}, p50 ${row.p50Ms} ms, p99 ${row.p99Ms} ms, send lag p99 ${row.sendLagP99Ms} ms${row.holds ? '' : ' (does not hold)'}; coordinator ${row.coordinatorCpuMsPerMergedSecond} ms CPU per merged second`,
  );
  return row;
}

async function run(values) {
  const S = values.seconds;
  const env = { ...process.env };
  const clusterDir = path.join(ROOT, '.lab-engines', `bench-cluster-${process.pid}`);
  const cache = env.LAB_CLUSTER_CACHE || path.join(ROOT, '.lab-engines', 'cluster-images');
  const where = ['--dir', clusterDir, '--cache', cache];
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-load-nodes-'));
  let deployed = false;
  const rows = [];
  try {
    if (values.cluster) {
      log('bringing the cluster up (2 nodes)');
      const up = await lab(['cluster', 'up', '--nodes', '2', ...where]);
      if (up.code !== 0) throw new Error('cluster up failed');
      Object.assign(env, JSON.parse((await lab(['cluster', 'env', '--json', ...where])).out));
    }
    const local = env.LAB_LOAD_NODES === 'local';
    log('deploying single');
    const dep = await lab(
      [
        'deploy',
        'single',
        ...(local ? [] : ['--engine', 'swarm']),
        '--state-dir',
        stateDir,
        '--port-base',
        String(values['port-base']),
        '--json',
      ],
      { env },
    );
    if (dep.code !== 0) throw new Error('deploy failed');
    deployed = true;
    const target = JSON.parse(dep.out).url;
    for (const nodes of values.nodes.split(',').map(Number)) {
      for (const rate of values.rates.split(',').map(Number)) rows.push(await one(target, nodes, rate, env, S));
    }
  } finally {
    if (deployed) await lab(['down', '--state-dir', stateDir], { env });
    if (values.cluster) await lab(['cluster', 'down', ...where]);
  }

  // Where both hold, the 2-node merge against the 1-node run at the same rate.
  const agreement = [];
  for (const a of rows.filter((r) => r.loadNodes === 1 && r.holds)) {
    const b = rows.find((r) => r.loadNodes === 2 && r.rate === a.rate && r.holds);
    if (!b) continue;
    const diff = (x, y) => (x && y ? r1((Math.abs(y - x) / x) * 100) : null);
    agreement.push({
      rate: a.rate,
      launchedDiffPct: diff(a.launched, b.launched),
      p50DiffPct: diff(a.p50Ms, b.p50Ms),
      p99DiffPct: diff(a.p99Ms, b.p99Ms),
    });
  }
  const highest = (n) => Math.max(0, ...rows.filter((r) => r.loadNodes === n && r.holds).map((r) => r.rate));
  const out = {
    what: 'the same open-loop /ping schedule from 1 and from 2 load nodes (--load-nodes), merged exactly',
    where:
      values.cluster || env.LAB_CLUSTER_DIR
        ? "the lab's VM cluster"
        : env.LAB_LOAD_NODES === 'local'
          ? 'processes of this machine'
          : env.DOCKER_HOST,
    emulated: env.LAB_EMULATED ? 'nodes emulated (TCG): rates and latencies far below a real machine' : null,
    seconds: S,
    rows,
    agreement,
    highestHoldingRate: Object.fromEntries(values.nodes.split(',').map((n) => [n, highest(Number(n))])),
  };
  return { headline: { highestHoldingRate: out.highestHoldingRate, agreement }, ...out };
}

module.exports = bench(
  {
    name: 'load-nodes',
    usage:
      'node bench/load-nodes.js [--cluster] [--rates 25,50,100,200] [--nodes 1,2] [--seconds 10] [--port-base 8300]',
    flags: {
      cluster: flag.bool(),
      rates: { type: 'string', default: '25,50,100,200' },
      nodes: { type: 'string', default: '1,2' },
      seconds: common.seconds(10),
      'port-base': common.portBase(8300),
    },
    run,
  },
  module,
);
