#!/usr/bin/env node
'use strict';

// The lab's VM cluster (npm run cluster, issue 23): how long `up` takes for 2 and 3 nodes
// with the image cached (and, with --fresh-image, the image's first build into a new cache),
// a 4-replica stack behind the routing mesh deployed, and failover: from stopping node 2 to
// every task answering again (on node 1). Through-the-balancers figures on the cluster are
// the balancers study's (npm run study -- balancers --engine swarm, bench/results/studies).
//   node bench/cluster.js [--nodes 2,3] [--fresh-image] [--no-failover]
// Root and QEMU needed (as for npm run cluster). Writes bench/results/cluster.json.
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const lab = require('./lab');
const { bench, flag, common } = require('./kit');
const ROOT = path.join(__dirname, '..');
const log = (m) => process.stderr.write(`${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const secondsSince = (t) => Math.round((Date.now() - t) / 100) / 10;

const get = (url) =>
  new Promise((resolve) => {
    const req = http.get(url, { timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.headers['x-instance'] || null));
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(null));
  });

async function run(values) {
  const cache = process.env.LAB_CLUSTER_CACHE || path.join(ROOT, '.lab-engines', 'cluster-images');
  const out = { ups: [], image: null, failover: null };
  const dirOf = (tag) => path.join(ROOT, '.lab-engines', `bench-cluster-${tag}-${process.pid}`);

  if (values['fresh-image']) {
    const fresh = fs.mkdtempSync(path.join(ROOT, '.lab-engines', 'bench-image-'));
    fs.rmdirSync(fresh); // the lab claims a new folder itself
    const dir = dirOf('fresh');
    const t = Date.now();
    const up = await lab(['cluster', 'up', '--nodes', '2', '--dir', dir, '--cache', fresh]);
    out.image = { firstBuildAndUp2S: secondsSince(t), ok: up.code === 0 };
    await lab(['cluster', 'down', '--purge', '--dir', dir, '--cache', fresh]);
    fs.rmSync(fresh, { recursive: true, force: true });
  }

  for (const n of values.nodes.split(',').map(Number)) {
    const dir = dirOf(n);
    const where = ['--dir', dir, '--cache', cache];
    const t = Date.now();
    const up = await lab(['cluster', 'up', '--nodes', String(n), ...where]);
    const row = { nodes: n, upS: secondsSince(t), ok: up.code === 0 };
    const status = JSON.parse((await lab(['cluster', 'status', '--json', ...where])).out || '{}');
    row.accel = status.accel ?? null;
    row.ready = (status.nodes || []).map((x) => x.swarm);
    out.ups.push(row);
    log(`  ${n} nodes up in ${row.upS} s (${row.accel})`);

    if (n === 2 && !values['no-failover'] && row.ok) {
      const env = { ...process.env, ...JSON.parse((await lab(['cluster', 'env', '--json', ...where])).out) };
      const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-cluster-'));
      const td = Date.now();
      const dep = await lab(
        [
          'deploy',
          'replicated',
          '--engine',
          'swarm',
          '--balancer',
          'mesh',
          '--replicas',
          '4',
          '--state-dir',
          stateDir,
          '--port-base',
          String(values['port-base']),
          '--json',
        ],
        { env },
      );
      const deployS = secondsSince(td);
      if (dep.code === 0) {
        const url = JSON.parse(dep.out).url;
        const ts = Date.now();
        await lab(['cluster', 'stop-node', '2', ...where]);
        // Until four distinct tasks answer again, all on node 1.
        let firstError = null;
        let backS = null;
        while (Date.now() - ts < 900000) {
          const seen = new Set();
          let failed = 0;
          for (let i = 0; i < 16; i++) {
            const who = await get(`${url}/ping?i=${i}`);
            if (who) seen.add(who);
            else failed += 1;
          }
          if (failed && firstError === null) firstError = secondsSince(ts);
          const st = JSON.parse((await lab(['status', '--json', '--state-dir', stateDir], { env })).out || '{}');
          const live = (st.live || []).filter((x) => x.name.startsWith('replica-'));
          if (
            seen.size === 4 &&
            !failed &&
            live.length === 4 &&
            live.every((x) => x.node === 'node1' && x.status === 'up')
          ) {
            backS = secondsSince(ts);
            break;
          }
          await sleep(2000);
        }
        out.failover = {
          deployReplicas4S: deployS,
          firstErrorAfterStopS: firstError,
          allTasksAnsweringAfterStopS: backS,
          how: 'node 2 stopped at once (as power lost); polled every ~2 s: 16 requests through the mesh and `status`',
        };
        log(`  failover: every task answering again ${backS} s after node 2 stopped`);
      }
      await lab(['down', '--state-dir', stateDir], { env });
    }
    await lab(['cluster', 'down', ...where]);
  }

  return { headline: { ups: out.ups, failover: out.failover }, ...out };
}

module.exports = bench(
  {
    name: 'cluster',
    usage: 'node bench/cluster.js [--nodes 2,3] [--fresh-image] [--no-failover] [--port-base 8500]',
    flags: {
      nodes: { type: 'string', default: '2,3' },
      'fresh-image': flag.bool(),
      'no-failover': flag.bool(),
      'port-base': common.portBase(8500),
    },
    run,
  },
  module,
);
