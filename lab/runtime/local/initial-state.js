'use strict';

const fs = require('node:fs');
const path = require('node:path');

// The local deployment's state as state.json keeps it from its start (`rt`: the LocalRuntime).

// The deployment's state as state.json keeps it from its start: what was asked, where each
// node listens, where its files are, and (filled in as they start) its processes.
function initialState(rt, { deployment, graph, caps, cgroups, token, ports, urlOf, contexts, probe, stores }) {
  return {
    runtime: 'local',
    deployment,
    graph,
    caps,
    cgroups: cgroups ? { version: cgroups.version, token } : null,
    host: rt.host,
    ports,
    url: urlOf(graph.front[0]),
    // Every address a client may use: the entry, or each front node when there is none.
    urls: graph.front.map(urlOf),
    startedAt: new Date().toISOString(),
    // Where each proxy node keeps its files (its edges' cache counts are read there).
    paths: Object.fromEntries(Object.entries(contexts).map(([n, c]) => [n, c.paths])),
    // Each proxy's context but its upstreams, for the configs rendered again when replicas
    // come and go (lab/runtime/local-replicas.js).
    proxyContexts: Object.fromEntries(
      Object.entries(contexts).map(([n, c]) => [
        n,
        {
          listen: c.listen,
          paths: c.paths,
          connections: c.connections,
          bin: c.bin,
          workerUser: c.workerUser,
          tls: c.tls,
        },
      ]),
    ),
    // The number the next replica added gets (a name is never used twice in a deployment).
    replicaSeq: deployment.replicas + 1,
    // The entry's rendered config, kept with a run's results.
    // (The lab's own node balancer has none: it is configured by its environment. A path
    // to no file once failed `scenario --balancer node`, copying it: ENOENT.)
    entryConf:
      graph.entry && contexts[graph.entry]?.paths.confFile && fs.existsSync(contexts[graph.entry].paths.confFile)
        ? contexts[graph.entry].paths.confFile
        : null,
    pm2Home: path.join(rt.stateDir, 'pm2'),
    probe,
    // The entry's TLS (--tls): the CA its clients trust, and whether it speaks HTTP/2.
    tls: deployment.tls ? { ca: rt.ca, http2: deployment.tls.http2, own: Boolean(deployment.tls.cert) } : null,
    // Each store's folder, whether down keeps its data (--keep-data), and whether it counts
    // its statements (--profile: lab/stores/statements.js).
    stores: Object.fromEntries(
      Object.entries(stores).map(([n, s]) => [
        n,
        { dir: s.ctx.dir, outside: s.outside, keepData: !s.fresh, statements: s.ctx.profile },
      ]),
    ),
    pids: {},
    processes: [],
    // name -> identity of every process the lab started here.
    owned: {},
  };
}

module.exports = { initialState };
