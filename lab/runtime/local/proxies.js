'use strict';

const fs = require('node:fs');
const os = require('node:os');
const { DAEMON_HOSTS } = require('../../kinds');

// The local runtime's proxies (lab/kinds/): their programs, their daemons of this folder, and
// their configs rendered and checked before anything starts (`rt`: the LocalRuntime).

// Each proxy kind's program (lab/kinds/, its host.program): found, or installed when the
// lab may. Returns { kind's name: its program }.
async function proxyPrograms(rt, proxies) {
  const bins = {};
  for (const { kind } of proxies) bins[kind.name] ??= await kind.host.program(rt.log);
  return bins;
}

// The kinds' own daemons of this folder still running (the lab's nginx masters), found by
// their kind (host.owned): their proof is in the folder, not in a token.
function ownedDaemons(rt) {
  return DAEMON_HOSTS.flatMap((h) => h.owned(rt.stateDir));
}

// Every proxy's config, rendered by its kind into its prefix and checked by the program
// itself, before anything starts. Returns { node: its kind's context }.
async function renderProxies(rt, proxies, { deployment, address, options, bins, tls = null }) {
  const contexts = {};
  for (const { node, kind } of proxies) {
    const paths = kind.host.paths(rt.stateDir, node);
    const ctx = {
      deployment,
      node,
      listen: { host: rt.host, port: node.port },
      upstreams: node.upstreams.map(address),
      paths,
      container: false,
      connections: options.connections ?? 8192,
      bin: bins[kind.name],
      // An nginx edge's workers write the cache inside the state folder, which root's
      // default worker user (nobody) may not enter.
      workerUser: process.getuid() === 0 ? os.userInfo().username : null,
      // The entry terminates TLS (--tls); the nodes behind it stay plain HTTP.
      tls: tls && tls.node === node.name ? tls : null,
    };
    contexts[node.name] = ctx;
    fs.mkdirSync(paths.prefix, { recursive: true });
    if (paths.tempDir) fs.mkdirSync(paths.tempDir, { recursive: true });
    if (paths.workDir) fs.mkdirSync(paths.workDir, { recursive: true });
    if (kind.config) fs.writeFileSync(paths.confFile, kind.config(ctx));
    await kind.host.check(ctx);
  }
  return contexts;
}

module.exports = { proxyPrograms, ownedDaemons, renderProxies };
